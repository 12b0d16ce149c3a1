"""The property-test harness: strategies shaped like tool output, and invariant checks over graphs."""
