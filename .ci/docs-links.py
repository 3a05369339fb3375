"""Checks that every relative link and image in the README, the contract (docs/*.md) and the DocC
articles points to a file that exists, and that a link's #anchor into a Markdown page of docs/ (or
within one) names one of its headings, as GitHub writes them. GitHub shows the articles as they are, so a link that DocC does not check (a path to a
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

files = ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("Sources/*/*.docc/**/*.md", recursive=True))
broken, pending, checked = [], [], 0


def anchors(page):
    """The anchors GitHub gives a page's headings: lowercase, punctuation dropped, spaces as '-'."""
    found, in_fence = set(), False
    with open(page, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
            elif not in_fence and re.match(r"^#{1,6} ", line):
                slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
                found.add(slug)
    return found


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
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # a URL, a doc: link or mailto:
        file_part, _, anchor = target.partition("#")
        if not file_part and not path.startswith("docs/"):
            continue  # an anchor in the same page, outside docs/ (DocC's own, or GitHub's)
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        checked += 1
        if os.path.exists(resolved):
            if anchor and resolved.startswith("docs/") and resolved.endswith(".md") and anchor not in anchors(resolved):
                broken.append(f"{path}:{number}: {target} -> no heading of {resolved} has the anchor #{anchor}")
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
