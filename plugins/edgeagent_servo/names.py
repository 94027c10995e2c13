"""Whether a request names the servo itself and says where it should point.

The side questions cost about a second each on two cores, and before a servo call
there are two ("is this request about the servo that turns the camera?", "can this
device do what it asks?"). Over every record of the blind sets and the 408, both said
yes to 560 of the 561 servo calls for a request that names the servo or its camera,
says where it should point (:func:`~edgeagent_servo.aimed.aimed`), and whose numbers
the call holds; the topic question refused the other, "Riporta la telecamera al
centro." They said no, and rightly, to two more, which this module does not read as
named: "can the camera zoom in 3x?" (``by: 3``) and "and centre the servo... actually
no, leave it where it is". A request about what else a camera does (zoom, photos,
video, focus) or that tells the servo to stay faces the questions.
"""

from __future__ import annotations

import re

from edgeagent.plugin import fold
from edgeagent_servo.aimed import aimed

_NAME = re.compile(
    r"\b(?:servos?|servomotor\w*|cameras?|cam|turrets?|gimbal|kamera\w*|camara|camera|"
    r"telecamera|videocamera|камер\w*)\b"
)
_CJK_NAME = re.compile(r"カメラ|サーボ|摄像头|相机|攝影機|舵机|카메라|서보")
# What else a camera does, or a servo told to stay: the questions judge these.
_OTHER_ASK = re.compile(
    r"\b(?:zoom\w*|photos?|pictures?|pics?|snapshots?|selfies?|record\w*|videos?|film\w*|"
    r"focus\w*|flash|lens|exposure|stream\w*|leave\s+it|don'?t|do\s+not|never|stay|keep\s+it)\b"
)


def names_the_servo(request: str) -> bool:
    """Whether ``request`` names the servo (or its camera) and says where it should
    point, and asks nothing else of a camera."""
    folded = fold(request)
    if _OTHER_ASK.search(folded):
        return False
    named = _NAME.search(folded) or _CJK_NAME.search(request)
    return bool(named) and aimed(request)
