"""Capture more real data-file reads of the shapes of issue 16's crushed-read leads: arrays of
objects where a key is present in only part of the items (sparse keys), and TOML manifests with
runs of sibling tables (``[pkg.X.target.Y]``), from sources no earlier fixture used:
- ``cat emoji_pretty.json`` of the npm package emoji-datasource (``skin_variations``,
  ``obsoletes`` in a minority of 1,911 emoji);
- ``cat jetty-home-12.0.20-cyclonedx.json``: the CycloneDX SBOM of Jetty bundled with the Google
  Cloud SDK's App Engine tools (``publisher`` in 234 of 293 components);
- ``cat multirust-channel-manifest.toml`` of rustup's *nightly* toolchain.

``must_keep`` is computed by the fact rules of ``capture_docsdata_unseen.py`` (fixed before
thresher sees the output, independent of the crushers): JSON — every top-level key, and for the
largest array of objects the identifying key's value of the first and last item and of every
item whose set of keys differs from the most common one; TOML — every table header line once, at
most 80.
Usage: ``python benchmarks/capture_datareads_unseen.py`` (needs npm and a rustup nightly).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_docsdata_unseen as dd  # a sibling script, not a package

dd.SRC = "benchmarks/capture_datareads_unseen.py"


def npm_file(tmp: str, package: str, member: str) -> str:
    """``member`` of the npm tarball of ``package`` (fetched with ``npm pack``), extracted."""
    name = subprocess.run(["npm", "pack", package, "--silent"], cwd=tmp, capture_output=True,
                          text=True, check=True).stdout.strip().splitlines()[-1]
    with tarfile.open(os.path.join(tmp, name)) as tar:
        tar.extract(member, tmp, filter="data")
    return os.path.join(tmp, member)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = npm_file(tmp, "emoji-datasource@16.0.0", "package/emoji_pretty.json")
        dd.case("json-emoji-datasource", "json", "cat emoji_pretty.json", os.path.dirname(path),
                "npm emoji-datasource 16.0.0", dd.json_facts(open(path).read()))
    sbom = glob.glob("/usr/lib/google-cloud-sdk/platform/google_appengine/google/appengine/tools/java/"
                     "jetty12/jetty-home/jetty-home-*-cyclonedx.json")
    if sbom:
        dd.case("json-jetty-cyclonedx", "json", f"cat {os.path.basename(sbom[0])}",
                os.path.dirname(sbom[0]), "Jetty's CycloneDX SBOM (Debian google-cloud-cli)",
                dd.json_facts(open(sbom[0]).read()))
    manifest = glob.glob("/root/.rustup/toolchains/nightly-*/lib/rustlib/multirust-channel-manifest.toml")
    if manifest:
        dd.case("toml-rustup-nightly-channel", "toml", "cat multirust-channel-manifest.toml",
                os.path.dirname(manifest[0]), "rustup's nightly channel manifest",
                dd.toml_facts(open(manifest[0]).read()))


if __name__ == "__main__":
    main()
