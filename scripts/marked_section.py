"""Rewrites the text between two markers of a page (a generated section inside a hand-written
page), used by scripts/publish_section8.py and scripts/universality_report.py --publish."""
import sys


def replace_marked_section(path, begin, end, section):
    """Replaces the text of `path` from `begin` to `end` (both markers included) by `section`,
    which carries the markers itself; exits with one line naming the file if a marker is gone."""
    text = path.read_text()
    if begin not in text or end not in text:
        sys.exit(f"{path} has no {begin} … {end} markers")
    before, rest = text.split(begin, 1)
    after = rest.split(end, 1)[1]
    path.write_text(before + section + after)
