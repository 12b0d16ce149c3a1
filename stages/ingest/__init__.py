"""Read, Guard, Score: decode the bytes, decide what passes byte-exact, tier every line."""
