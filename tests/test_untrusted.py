"""One escape for untrusted text, in every front end."""

from shellgate.untrusted import escape_one_line, escape_untrusted


def test_controls_and_format_characters_show_and_do_nothing() -> None:
    text = "ok\x1b[31mred\u202etxt.exe\u200bzw\u2028ls\x7f\x9b"
    shown = escape_untrusted(text)
    assert shown == "ok\\x1b[31mred\\u202etxt.exe\\u200bzw\\u2028ls\\x7f\\x9b"
    assert escape_untrusted("a\n\tb") == "a\n\tb"  # an agent's output keeps its lines
    assert escape_one_line("a\n\tb") == "a\\n\\tb"  # a command in a question stays one line
    assert escape_one_line("héllo — 日本") == "héllo — 日本"
