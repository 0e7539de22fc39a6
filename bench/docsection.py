"""Rewrites one `## ` section of docs/BENCHMARKS.md from a bench script's results, keeping
what was written by hand below its `### Notes` heading (measurement notes survive a rerun)."""

from pathlib import Path

NOTES = "\n### Notes\n"


def write_section(doc_path: Path, title: str, text: str, after: str | None = None) -> None:
    """Replaces the section headed `title` with `text` (which starts with that heading),
    keeping its `### Notes` part; a new section goes after the section headed `after`, or
    at the end."""
    doc = doc_path.read_text()
    start = doc.find(title + "\n")
    text = text.rstrip("\n") + "\n"
    if start < 0:
        at = doc.find(after + "\n") if after else -1
        end = doc.find("\n## ", at + 1) if at >= 0 else -1
        if end < 0:
            doc = doc.rstrip("\n") + "\n\n" + text
        else:
            doc = doc[:end + 1] + text + "\n" + doc[end + 1:]
    else:
        end = doc.find("\n## ", start + len(title))
        old = doc[start:end + 1] if end >= 0 else doc[start:]
        notes = old.find(NOTES)
        if notes >= 0 and NOTES not in text:
            text += old[notes:].rstrip("\n") + "\n"
        doc = doc[:start] + text + ("\n" + doc[end + 1:] if end >= 0 else "")
    doc_path.write_text(doc)
