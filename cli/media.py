"""The old name of :mod:`thresher.boundary.media` (moved below cli/ with the one ``deliver()``
that describes binary payloads): ``thresher.media`` *is* that module."""

import sys

from thresher.boundary import media

sys.modules[__name__] = media
