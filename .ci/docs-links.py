"""Checks that every relative link and image in the README and the DocC articles points to a file
that exists. GitHub shows the articles as they are, so a link that DocC does not check (a path to a
file, another target's article) must still lead somewhere. DocC's own links (<doc:…>, ``Symbol``) are
checked by DocC itself, in .ci/docs. A link into a catalog that does not exist yet (another target's,
still being written) is listed, not failed; once the catalog exists its links are checked too.

    python3 .ci/docs-links.py     # from the package root; exit status 1 when a link is broken
"""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE = re.compile(r"`+[^`]*`+")

files = ["README.md"] + sorted(glob.glob("Sources/*/*.docc/**/*.md", recursive=True))
broken, pending, checked = [], [], 0
for path in files:
    # Fenced code blocks blanked (their lines kept, for line numbers), then inline code: neither links.
    lines, in_fence = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                lines.append("\n")
            else:
                lines.append("\n" if in_fence else CODE.sub("", line))
    text = "".join(lines)
    for match in LINK.finditer(text):
        target = match.group(1)
        number = text.count("\n", 0, match.start()) + 1
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue  # a URL, a doc: link, mailto: or an anchor in the same page
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#", 1)[0]))
        checked += 1
        if os.path.exists(resolved):
            continue
        catalog = re.match(r"^(Sources/[^/]+/[^/]+\.docc)/", resolved)
        if catalog and not os.path.isdir(catalog.group(1)):
            pending.append(f"{path}:{number}: {target} (catalog {catalog.group(1)} not written yet)")
        else:
            broken.append(f"{path}:{number}: {target} -> {resolved} does not exist")

for line in pending:
    print(f"note: {line}")
for line in broken:
    print(f"error: {line}")
print(f"docs links: {checked} relative links in {len(files)} files, {len(broken)} broken, {len(pending)} into catalogs not written yet")
sys.exit(1 if broken else 0)
