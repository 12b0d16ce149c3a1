"""``python -m thresher``."""

from thresher.main import main

raise SystemExit(main())
