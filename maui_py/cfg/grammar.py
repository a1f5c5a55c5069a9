"""The maui.cfg grammar (spec section 1.2): logical lines, then a pyparsing grammar per line.

Pass 1 (`logical_lines`) does what Maui's MCfgAdjustBuffer does: `#` starts a comment, a `\\` at the
end of a line's code joins it with the next line (a `\\` elsewhere is a space), control characters
become spaces. It keeps, for every logical line, where each physical line starts in it, so any
offset maps back to the physical line and 1-based column an editor shows.

Pass 2 parses one logical line with pyparsing:

    line      := NAME [ "[" INDEX [ "]" ] ] ( ws | ws? "=" ws? ) VALUE
    VALUE     := the rest of the line, or for *CFG parameters an attribute list:
    attrs     := ( ATTR [ "[" INDEX "]" ] ( "=" | "==" | "+=" | "-=" ) ( QUOTED | NON-SPACE* ) )*

Words that are not `ATTR=VALUE` come back as junk, so the loader can warn about them. Both passes
are linear in the length of the text (no backtracking beyond one token), so parsing a file is O(n).
The pyparsing grammar is the definition; lines, and attribute lists without quotes, are read by
equivalent regular expressions (about 20 times faster), and a property test holds them equal.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LogicalLine:
    """A parameter line after comments and continuations; `starts` maps offsets to physical lines."""

    text: str
    starts: tuple[int, ...]
    lines: tuple[int, ...]

    def position(self, offset: int) -> tuple[int, int]:
        """(physical line, 1-based column) of an offset into `text`."""
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.lines[i], offset - self.starts[i] + 1

    @property
    def indented(self) -> bool:
        return self.text[:1].isspace()


@dataclass(frozen=True, slots=True)
class Token:
    """Some text of a logical line and where it starts in it."""

    text: str
    offset: int


@dataclass(frozen=True, slots=True)
class ParamLine:
    name: Token
    index: Token | None
    index_closed: bool
    value: Token


@dataclass(frozen=True, slots=True)
class AttrToken:
    """`NAME[INDEX]OP VALUE` inside a *CFG value; `op` is one of = == += -=."""

    name: Token
    index: Token | None
    op: str
    value: Token


def logical_lines(text: str) -> tuple[list[LogicalLine], list[tuple[int, int]]]:
    """Split a file into logical lines; also return (line, column) of each `#INCLUDE` seen."""
    result: list[LogicalLine] = []
    includes: list[tuple[int, int]] = []
    parts: list[str] = []
    starts: list[int] = []
    lines: list[int] = []
    length = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        hash_at = raw.find("#")
        code = raw if hash_at < 0 else raw[:hash_at]
        if hash_at >= 0 and not code.strip() and raw[hash_at:hash_at + 8].upper() == "#INCLUDE":
            includes.append((number, hash_at + 1))
        code = _printable(code)
        joined = code.rstrip().endswith("\\")
        if joined:
            code = code.rstrip()[:-1] + " "
        code = code.replace("\\", " ")
        starts.append(length)
        lines.append(number)
        parts.append(code)
        length += len(code)
        if not joined:
            _flush(result, parts, starts, lines)
            parts, starts, lines, length = [], [], [], 0
    _flush(result, parts, starts, lines)
    return result, includes


def _printable(code: str) -> str:
    """Control and other unprintable characters become spaces (tabs stay): columns are kept."""
    if code.replace("\t", " ").isprintable():
        return code
    return "".join(c if c.isprintable() or c == "\t" else " " for c in code)


def _flush(result: list[LogicalLine], parts: list[str], starts: list[int], lines: list[int]) -> None:
    text = "".join(parts)
    if text.strip():
        result.append(LogicalLine(text, tuple(starts), tuple(lines)))


@functools.cache
def _grammar():
    """(line grammar, attribute-list grammar, ParseException), built on first use: importing
    pyparsing and building the grammar costs tens of milliseconds, which a command that never
    parses a file (`showq --help`) should not pay."""
    import pyparsing as pp

    name = pp.Regex(r"[A-Za-z_][A-Za-z0-9_]*")
    index = pp.Suppress("[") + pp.Regex(r"[^\]\s]*") + pp.Optional(pp.Literal("]"))("close")
    sep = pp.Regex(r"[ \t]*=[ \t]*|[ \t]+")
    rest = pp.Regex(r".*")
    line = (pp.Located(name)("name") + (
        pp.Optional(pp.Located(index)("index")) + pp.Optional(sep)("sep") + pp.Located(rest)("value")
    ).leave_whitespace()).parse_with_tabs()

    attr_name = pp.Regex(r"[A-Za-z_][A-Za-z0-9_.]*")
    attr_index = pp.Suppress("[") + pp.Regex(r"[^\]\s]*") + pp.Suppress("]")
    op = pp.Regex(r"\+=|-=|==|=")
    quoted = pp.QuotedString("'", unquote_results=False) | pp.QuotedString('"', unquote_results=False)
    attr = pp.Located(attr_name)("name") + (
        pp.Optional(pp.Located(attr_index)("index")) + op("op") + pp.Located(quoted | pp.Regex(r"\S*"))("value")
        + pp.FollowedBy(pp.White() | pp.StringEnd())
    ).leave_whitespace()
    junk = pp.Located(pp.Regex(r"\S+"))("junk")
    attrs = (pp.ZeroOrMore(pp.Group(attr | junk)) + pp.StringEnd()).parse_with_tabs()
    return line, attrs, pp.ParseException


def _token(located, base: int = 0) -> Token:
    return Token("".join(located[1]), base + located[0])


_LINE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)(?:(\[)([^\]\s]*)(\])?)?([ \t]*=[ \t]*|[ \t]+)?(.*)")
"""The line grammar as one regular expression: every part is deterministic (a greedy run of a
character class that excludes what follows it, then `.*`), so it matches exactly what the
pyparsing grammar matches, at the same offsets (tests/property/test_cfg_fast_path.py)."""
_WORD = re.compile(r"\S+")
_ATTR = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?:\[([^\]\s]*)\])?(\+=|-=|==|=)(\S*)")
"""One unquoted `ATTR[INDEX]OP VALUE` word; a word that does not match whole is junk."""


def parse_line(line: LogicalLine) -> ParamLine | None:
    """The name, index and value of a parameter line; None when the line is not one.

    A regular expression equivalent to the pyparsing grammar reads every line (pyparsing took
    about 0.2 ms a line, most of a 20,000-user file's load time)."""
    found = _LINE.match(line.text)
    if found is None:
        return None
    value = Token(found.group(6), found.start(6))
    if found.group(2) is None and not found.group(5) and value.text.strip():
        return None
    index = Token(found.group(3), found.start(3)) if found.group(2) is not None else None
    return ParamLine(Token(found.group(1), found.start(1)), index, found.group(4) is not None,
                     Token(value.text.rstrip(), value.offset))


def parse_attrs(value: Token) -> list[AttrToken | Token]:
    """The `ATTR=VALUE` words of a *CFG value (offsets relative to the line); other words as Tokens.

    A value without quotes is split into words and each word matched by a regular expression
    (the same reading as the pyparsing grammar, which a quoted value still takes)."""
    if "'" in value.text or '"' in value.text:
        return _parse_attrs_pyparsing(value)
    words: list[AttrToken | Token] = []
    base = value.offset
    for word in _WORD.finditer(value.text):
        attr = _ATTR.fullmatch(word.group())
        start = base + word.start()
        if attr is None:
            words.append(Token(word.group(), start))
            continue
        index = Token(attr.group(2), start + attr.start(2)) if attr.group(2) is not None else None
        words.append(AttrToken(Token(attr.group(1), start), index, attr.group(3),
                               Token(attr.group(4), start + attr.start(4))))
    return words


def _parse_line_pyparsing(line: LogicalLine) -> ParamLine | None:
    """parse_line by the pyparsing grammar: the definition the regular expression is tested against."""
    grammar, _attrs, parse_error = _grammar()
    try:
        found = grammar.parse_string(line.text, parse_all=True)
    except parse_error:
        return None
    value = _token(found["value"])
    index = found.get("index")
    if index is None and not found.get("sep") and value.text.strip():
        return None
    index_token = Token(index[1][0], index[0] + 1) if index is not None else None
    closed = index is not None and len(index[1]) > 1
    return ParamLine(_token(found["name"]), index_token, closed, Token(value.text.rstrip(), value.offset))


def _parse_attrs_pyparsing(value: Token) -> list[AttrToken | Token]:
    """parse_attrs by the pyparsing grammar (quoted values, and the tests' definition)."""
    found = _grammar()[1].parse_string(value.text, parse_all=True)
    words: list[AttrToken | Token] = []
    for group in found:
        if "junk" in group:
            words.append(_token(group["junk"], value.offset))
            continue
        index = group.get("index")
        words.append(AttrToken(
            _token(group["name"], value.offset),
            Token(index[1][0], value.offset + index[0] + 1) if index is not None else None,
            group["op"],
            _token(group["value"], value.offset),
        ))
    return words
