"""The old name of :mod:`thresher.boundary.switches` (moved below cli/ so that integrations/ and
stores/ use it without importing a command module): ``thresher.switches`` *is* that module."""

import sys

from thresher.boundary import switches

sys.modules[__name__] = switches
