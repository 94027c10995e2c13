"""The strip's names and colours in Japanese, Chinese and Korean, and typed with one slip
of the keyboard (:mod:`edgeagent_led.names`): "ライトを赤にして" and "tunr the lihgts to
yelow" were right LED calls refused as guesses (blind prompts)."""

from __future__ import annotations

from typing import Any

import edgeagent_led
import pytest
from edgeagent_led.names import names_the_strip, said_colors
from edgeagent_led.strip import LedState, foreign_colors, slipped_colors

from edgeagent.agent.loop import Agent
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.plugin import fold
from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import Strip, fence, final, make
from tests.plugins.rereads import reread

_SWITCH = {"off", "none", "dark", "#000", "#000000"}


def said(request: str) -> set[str]:
    """The colours ``request`` says, a dark strip's own black and the words for off
    aside."""
    return set(said_colors(lambda: LedState.dark(8))(request)) - {"black"} - _SWITCH


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        # Japanese
        ("ライトを赤にして", True),
        ("リビングの照明を青くして", True),
        ("電気をつけて", True),
        ("部屋の電気、暖かいオレンジにできる?", True),
        ("ランプを紫にしてください", True),
        ("LEDテープをピンクに", True),
        ("ＬＥＤを緑に", True),  # full-width letters
        ("寝室の明かりを少し暗くして", True),
        # Chinese
        ("把灯调成红色", True),
        ("灯光亮一点", True),
        ("打开灯带", True),
        ("台灯换成暖白色", True),
        ("LED灯带调成蓝色", True),
        # Korean
        ("거실 조명을 파란색으로 바꿔줘", True),
        ("불 좀 꺼줘", True),
        ("불을 빨간색으로 켜줘", True),
        ("불켜", True),
        ("램프를 노란색으로", True),
        ("라이트 밝기 50으로", True),
        ("LED를 초록색으로", True),
        # no light named: a word that holds a name is no light, or none at all
        ("電気代が高すぎる", False),
        ("静電気がひどい", False),
        ("電気ストーブをつけて", False),
        ("今日はいい天気ですね", False),
        ("このフライトは何時?", False),
        ("ハイライトを見せて", False),
        ("我明白了，谢谢", False),
        ("打开蓝牙", False),
        ("불편해요", False),
        ("불가능한 일이야", False),
        ("불만 없어요", False),
        # another device's light
        ("路灯什么时候亮?", False),
        ("红绿灯坏了", False),
        ("换个灯泡", False),
        ("懐中電灯はどこ?", False),
        ("紫外線ライトをつけて", False),
        ("헤드라이트 켜줘", False),
        ("손전등 어디 있어?", False),
        ("불을 피워줘", False),  # make a fire
        # don't
        ("ライトは消さないで", False),
        ("别关灯", False),
        ("불 끄지 마", False),
        # but a word with 别 or 不要 in it says no "don't"
        ("把灯调成特别亮的白色", True),
        ("要不要开灯?", True),
    ],
)
def test_a_request_names_the_strip_in_japanese_chinese_and_korean(
    request_: str, named: bool
) -> None:
    assert names_the_strip(request_) is named


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("tunr the lihgts to yelow", True),
        ("ligths off please", True),
        ("dim the lihgt, it's too bright", True),
        ("make the stirp blue", True),
        ("the led strips, red", True),  # a plural: one letter added
        ("mach die Lmape rot", True),
        ("mach die Almpe rot", False),  # a slip of the first letter is not read
        ("Mach das Lichtt blau", True),
        # "lite", as people spell it ("cna you put the lite on pleas": blind prompts)
        ("cna you put the lite on pleas", True),
        ("turn the lites blue", True),
        ("is the satellite up?", False),
        # words of their own
        ("make it a bit lighter", False),
        ("that stripe is ugly", False),
        ("das ist leicht", False),
        ("good night, see you tomorrow", False),
        ("right now, please", False),
        # the exclusions still hold with a slip
        ("switch on the heat lihgt", False),
        ("lihgt the candles", False),
        ("don't touch the lihgts", False),
    ],
)
def test_a_name_typed_with_one_slip_names_the_strip(request_: str, named: bool) -> None:
    assert names_the_strip(request_) is named


@pytest.mark.parametrize(
    ("request_", "colors"),
    [
        ("ライトを赤にして", {"red"}),
        ("真っ赤にして", {"red"}),
        ("赤く光らせて", {"red"}),
        ("青空みたいな色で", {"blue"}),
        ("照明を水色に", {"lightblue"}),
        ("ピンクにして", {"pink"}),
        ("黄色と緑", {"yellow", "green"}),
        ("金色にして", {"gold"}),  # not yellow: 黄金 and 金色 are gold
        ("把灯调成粉红色", {"pink"}),  # not red as well: the longest word first
        ("灯光换成天蓝色", {"skyblue"}),
        ("台灯调成紫色", {"purple"}),
        ("调成棕色", {"brown"}),
        ("조명을 빨간색으로", {"red"}),
        ("불 보라색으로", {"purple"}),
        ("하늘색으로 바꿔줘", {"skyblue"}),
        ("분홍색 불빛", {"pink"}),
        # words that hold a colour word and say no colour
        ("赤ちゃんが寝てるから静かに", set()),
        ("この映画は面白い", set()),
        ("我明白了", set()),
        ("打开蓝牙", set()),
        ("红绿灯坏了", set()),
        ("이거 보라고", set()),
        ("今日はいい天気ですね", set()),
    ],
)
def test_the_colours_a_request_says_in_japanese_chinese_and_korean(
    request_: str, colors: set[str]
) -> None:
    assert said(request_) == colors


def test_a_cjk_colour_word_with_a_voiced_mark_is_read_as_written() -> None:
    # Folding drops the mark: "ブルー" (blue) would be "フルー", as in "フルーツ" (fruit).
    assert foreign_colors("ライトをブルーに") == {"blue"}
    assert foreign_colors("フルーツが好き") == set()
    assert foreign_colors("クリーンな部屋") == set()  # clean, not グリーン (green)
    assert foreign_colors(fold("ライトを赤に")) == {"red"}  # a kanji has no mark to drop


@pytest.mark.parametrize(
    ("request_", "colors"),
    [
        ("tunr the lihgts to yelow", {"yellow"}),
        ("make it purpel", {"purple"}),
        ("turqoise please", {"turquoise"}),
        ("oragne light", {"orange"}),
        ("Mach es violtt", {"violet"}),  # German "violett", one letter short
        ("luz amarilo", {"yellow"}),
        ("whte light", set()),  # two slips from "white": "whte" is four letters
        # short words: no slip is read in them ("bed" is not red)
        ("go to bed", set()),
        ("the rad one", set()),
        # words of their own, one slip from a colour word
        ("greed is good", set()),  # a word, not "green" mistyped
        ("while you are at it", set()),
        ("write it down", set()),
        ("a block away", set()),
        ("too violent", set()),
        ("the route home", set()),
        ("a rough day", set()),
        ("pairs of socks", set()),
        # a slip of the first letter is not read
        ("crown jewels", set()),
    ],
)
def test_a_colour_typed_with_one_slip_is_said(request_: str, colors: set[str]) -> None:
    assert said(request_) == colors


def test_a_colour_said_right_is_no_slip() -> None:
    assert slipped_colors("yellow and green") == set()  # the checks read those as said
    assert slipped_colors("marron") == set()  # French brown, not maroon mistyped


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # One CJK colour said, the model wrote another: the one said.
        ({"color": "red"}, "ライトを紫にして", {"color": "purple"}),
        ({"color": "blue"}, "把灯调成绿色", {"color": "green"}),
        ({"color": "orange"}, "조명을 노란색으로", {"color": "yellow"}),
        ({"color": "hotpink"}, "LEDテープをピンクに", {"color": "pink"}),
        # That colour, or two said: as written.
        ({"color": "red"}, "ライトを赤にして", None),
        ({"color": "red"}, "赤と青", None),
    ],
)
def test_a_cjk_colour_is_read_again(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_led, "led", arguments, request_) == read


def led_agent(rules: list[Rule], side: str) -> tuple[Agent, ScriptedEngine, Strip]:
    """An agent whose ``led`` is named and said by the LED plugin (its strip dark),
    every side question answered ``side``."""
    agent, engine, strip = make(
        [(r"Answer yes or no", side), *rules],
        named_in=names_the_strip,
        said_in=said_colors(lambda: LedState.dark(8)),
    )
    agent.check_target = True
    return agent, engine, strip


@pytest.mark.parametrize(
    ("prompt", "color"),
    [
        ("ライトを赤にして", "red"),
        ("tunr the lihgts to yelow", "yellow"),
        ("把灯调成蓝色", "blue"),
        ("거실 불을 초록색으로 바꿔줘", "green"),
    ],
)
def test_the_measured_requests_run_without_a_side_question(prompt: str, color: str) -> None:
    agent, engine, strip = led_agent([(r".", fence("led", color=color))], side="no")
    final(run_turn(agent, prompt))
    assert strip.commands == [color]
    assert not any(r.aside for r in engine.requests)


@pytest.mark.parametrize(
    ("prompt", "runs"),
    [
        ("赤にして", True),  # no light named, but red said: the side questions judge it
        ("make it purpel", True),
        ("電気代はいくら?", False),  # the electricity bill as red: a guess
        ("今日は暑いね", False),
    ],
)
def test_a_colour_no_one_said_in_any_language_is_still_a_guess(prompt: str, runs: bool) -> None:
    color = "purple" if "purpel" in prompt else "red"
    agent, _, strip = led_agent([(r".", fence("led", color=color))], side="yes")
    final(run_turn(agent, prompt))
    assert strip.commands == ([color] if runs else [])
