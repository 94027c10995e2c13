"""The model's English for a place written in another script, alone
(:mod:`edgeagent.agent.english`): how many it names right, and how many of those, and
of the wrong ones, the transliteration check lets through. Written on 2026-11-30; the
places are the usual large cities, none taken from bench/prompts/:

    .venv/bin/python bench/english_names.py

Greedy, so the figures repeat on the same model and machine. Measured on 2026-11-30
(the question and grammar of edgeagent/agent/english.py): 29 of 30 named right (横浜
as "Osaka"); 29 kept, all right: 16 as they read (:func:`transliterates`), 13 (Japanese
kanji, Arabic, Hebrew, Devanagari, Thai, 香港, Київ) by the same-place question, which
said no to 横浜 and "Osaka"; asked whether each place is the same as another city, it
said yes once in 30 (大阪 and Kyoto).
"""

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from side_questions import shipped_checks  # noqa: E402

from edgeagent.agent.english import _english, _same, same_place_question  # noqa: E402

PLACES = {
    "北京": "Beijing", "大阪": "Osaka", "서울": "Seoul", "東京": "Tokyo", "Москва": "Moscow",
    "Αθήνα": "Athens", "دبي": "Dubai", "上海": "Shanghai", "京都": "Kyoto", "札幌": "Sapporo",
    "Київ": "Kyiv", "القاهرة": "Cairo", "부산": "Busan", "Санкт-Петербург": "Saint Petersburg",
    "תל אביב": "Tel Aviv", "मुंबई": "Mumbai", "กรุงเทพ": "Bangkok", "名古屋": "Nagoya",
    "香港": "Hong Kong", "台北": "Taipei", "大连": "Dalian", "廣州": "Guangzhou",
    "Новосибирск": "Novosibirsk", "Θεσσαλονίκη": "Thessaloniki", "横浜": "Yokohama",
    "福岡": "Fukuoka", "인천": "Incheon", "Минск": "Minsk", "대구": "Daegu", "深圳": "Shenzhen",
}  # fmt: skip


async def main() -> int:
    checks, engine = shipped_checks()
    right = kept_right = kept_wrong = said_same = 0
    names = list(PLACES.values())
    try:
        for i, (written, english) in enumerate(PLACES.items()):
            said = await _english(written, llm=checks.llm, session="e")
            kept = said is not None and await _same(written, said, checks, session="e")
            right += said == english
            kept_right += kept and said == english
            kept_wrong += kept and said != english
            other = names[(i + 7) % len(names)]
            question = same_place_question(written, other)
            said_same += await checks.ask(question, session="e") == "yes"
            print(f"{written}: {said!r} {'kept' if kept else 'stays'}")
    finally:
        engine.close()
    print(f"named right {right}/{len(PLACES)}; kept right {kept_right}, kept wrong {kept_wrong}")
    print(f"asked whether each is the same place as another city: yes {said_same}/{len(PLACES)}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
