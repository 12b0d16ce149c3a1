"""The old name of :mod:`thresher.boundary.fastjson` (moved below cli/ so that integrations/ and
stores/ use it without importing a command module): ``thresher.fastjson`` *is* that module."""

import sys

from thresher.boundary import fastjson

sys.modules[__name__] = fastjson
