"""The grammar: comments, continuations and control characters become logical lines whose
offsets map back to the physical line and column; a line splits into name, index and value."""

from maui_py.cfg.grammar import AttrToken, Token, logical_lines, parse_attrs, parse_line


def lines_of(text):
    return logical_lines(text)[0]


def test_comments_blank_lines_and_trailing_comments():
    lines = lines_of("# header\n\n   \nBACKFILLPOLICY  ON #FIRSTFIT by default\n#x\nLOGLEVEL 3# é\n")
    assert [line.text.strip() for line in lines] == ["BACKFILLPOLICY  ON", "LOGLEVEL 3"]
    assert lines[0].position(0) == (4, 1) and lines[1].position(9) == (6, 10)


def test_continuation_joins_lines_and_keeps_physical_positions():
    text = "USERCFG[john] PRIORITY=100 \\\n    FSTARGET=10.0-\nNEXT 1\n"
    first, second = lines_of(text)
    parsed = parse_line(first)
    assert parsed.name.text == "USERCFG" and parsed.index.text == "john"
    words = parse_attrs(parsed.value)
    assert [w.name.text for w in words] == ["PRIORITY", "FSTARGET"]
    assert first.position(words[0].value.offset) == (1, 24)
    assert first.position(words[1].value.offset) == (2, 14)
    assert second.position(0) == (3, 1)


def test_backslash_in_a_comment_does_not_continue_and_midline_backslash_is_a_space():
    lines = lines_of("A 1 # not continued \\\nB 2\nC x\\y\n")
    assert [parse_line(line).value.text for line in lines] == ["1", "2", "x y"]


def test_tabs_and_control_characters_keep_columns():
    line = lines_of("\tRESERVATIONDEPTH\t\x0b5\r\n")[0]
    parsed = parse_line(line)
    assert parsed.name.offset == 1 and line.indented
    assert parsed.value.text == "5" and line.position(parsed.value.offset) == (1, 20)


def test_param_equals_value_and_unclosed_index():
    parsed = parse_line(lines_of("BACKFILLPOLICY=BESTFIT")[0])
    assert (parsed.name.text, parsed.value.text, parsed.value.offset) == ("BACKFILLPOLICY", "BESTFIT", 15)
    parsed = parse_line(lines_of("RESERVATIONDEPTH[1 5")[0])
    assert parsed.index.text == "1" and not parsed.index_closed and parsed.value.text == "5"
    parsed = parse_line(lines_of("SRCFG[x]=HOSTLIST=a,b")[0])
    assert parsed.index_closed and parsed.value.text == "HOSTLIST=a,b"


def test_non_parameter_lines_are_rejected():
    for text in ("123 abc", "FOO-BAR 3", "[x] 1", "=5", "@HOST@ x"):
        assert parse_line(lines_of(text)[0]) is None, text


def test_attribute_words_with_operators_quotes_indices_and_junk():
    value = parse_line(lines_of("NODECFG[n1] PRIORITYF='SPEED + LOAD' MAXPROC[USER:steve]=50 PLIST= "
                                "QLIST+=a,b X A==1")[0]).value
    words = parse_attrs(value)
    attrs = [w for w in words if isinstance(w, AttrToken)]
    assert [(w.name.text, w.op, w.value.text) for w in attrs] == [
        ("PRIORITYF", "=", "'SPEED + LOAD'"), ("MAXPROC", "=", "50"), ("PLIST", "=", ""),
        ("QLIST", "+=", "a,b"), ("A", "==", "1")]
    assert attrs[1].index.text == "USER:steve"
    assert value.text[attrs[1].index.offset - value.offset:].startswith("USER:steve")
    assert [w.text for w in words if isinstance(w, Token)] == ["X"]


def test_include_lines_are_reported():
    assert logical_lines("A 1\n#INCLUDE other.cfg\n")[1] == [(2, 1)]
