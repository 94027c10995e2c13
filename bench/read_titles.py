"""The topic question for the `ls` wrapper's title, alone: how many requests to see what a
file says it lets through (it should not: ``cat`` is for those), and how many requests
about which files there are (it should). "what's on my todo list" ran ``ls todo.md``:
the shipped title, "List directory", reads as any list. Written on 2026-11-27 to try
titles that name what a listing shows; none of these requests is in bench/prompts/:

    .venv/bin/python bench/read_titles.py ["another title to try"]

Greedy, so the figures repeat on the same model and machine. Measured on 2026-11-27
(be12c27): "List directory" let through 7 of 15 requests for a file's text and 10 of
12 listings; "Which files a folder holds (names, sizes, dates)" 12 and 12, "Files in a
folder: their names, sizes and dates" 10 and 12; ``cat``'s "Show what a file contains"
11 and 12. Asked alone, the model says a file request is about any file tool, so no
title was changed (docs/benchmarks_accuracy.md, variants).
"""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks, topic_yes  # noqa: E402

OLD = "List directory"
CAT = "Show what a file contains"

CONTENT = [
    "what's on my shopping list?",
    "read me the packing list",
    "what's in my notes",
    "give me the items on the to-do list",
    "print the grocery list",
    "whats left on my chores list",
    "show me the checklist",
    "what did I write in ideas.txt?",
    "what does the readme say",
    "open the recipe file",
    "cosa c'è nella mia lista della spesa?",
    "was steht auf meiner Einkaufsliste?",
    "list the items in the shopping file",
    "what's on the list for tomorrow",
    "show me the contents of plan.md",
]
LISTING = [
    "list the files here",
    "what files are in the logs folder?",
    "what's in this directory",
    "which files do I have",
    "is there a file called plan.md?",
    "how big is the csv file?",
    "show the hidden files too",
    "ls please",
    "when was the readme last changed",
    "what's in the logs dir",
    "list everything in the current folder",
    "quels fichiers y a-t-il ici ?",
]


async def main() -> None:
    checks, _ = shipped_checks()
    for title in (OLD, *sys.argv[1:], CAT):
        c = await topic_yes(checks, CONTENT, title)
        listing = await topic_yes(checks, LISTING, title)
        print(f"{title!r}: content requests yes {len(c)}/{len(CONTENT)}: {c}")
        print(
            f"   listing requests yes {len(listing)}/{len(LISTING)}; refused:",
            [p for p in LISTING if p not in listing],
        )


if __name__ == "__main__":
    asyncio.run(main())
