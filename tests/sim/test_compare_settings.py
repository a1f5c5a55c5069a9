"""The compare report's settings table compares what the scheduler reads, not the files' text
(issue 35 item 7): aliases and the unindexed stack level are one row, a value equal to the
default another file keeps is not a difference."""

from maui_py.sim.report import _config_html, _configs
from maui_py.sim.settings import side_by_side

A = "RESERVATIONDEPTH 1\nBACKFILLDEPTH 0\nJOBMAXOVERRUN 00:10:00\nUSERCFG[bob] MAXJOB=4\n"
B = "RESERVATIONDEPTH[0] 1\nRESERVATIONDEPTH[1] 2\nUFSWEIGHT 5\n"


def test_rows_are_effective_settings():
    a, b = side_by_side([A, B])
    assert a["settings"].keys() == b["settings"].keys()
    rows = a["settings"]
    assert "RESERVATIONDEPTH[0]" not in rows and "UFSWEIGHT" not in rows       # one row, canonical names
    assert (a["settings"]["RESERVATIONDEPTH"], b["settings"]["RESERVATIONDEPTH"]) == ("1", "1")
    assert (a["settings"]["FSUSERWEIGHT"], b["settings"]["FSUSERWEIGHT"]) == ("0", "5")
    assert a["settings"]["BACKFILLDEPTH"] == b["settings"]["BACKFILLDEPTH"] == "0"
    assert a["settings"]["JOBMAXOVERRUN"] == b["settings"]["JOBMAXOVERRUN"]
    assert (a["settings"]["USERCFG[bob]"], b["settings"]["USERCFG[bob]"]) == ("MAXJOB=4", "")
    assert "BACKFILLDEPTH" in a["set"] and "BACKFILLDEPTH" not in b["set"]


def test_the_table_marks_only_values_that_differ():
    html = _config_html(_configs([("a.cfg", A), ("b.cfg", B)]))
    changed = {row.split("<td>")[1].split("</td>")[0] for row in html.split("<tr")
               if row.startswith(' class="changed"')}
    assert changed == {"RESERVATIONDEPTH[1]", "FSUSERWEIGHT", "USERCFG[bob]"}
    assert "3 of 6 settings differ" in html
    assert "<td>0 <i>(default)</i></td>" in html


def test_a_text_that_does_not_load_falls_back_to_its_lines():
    configs = _configs([("a.cfg", A), ("bad.cfg", "RESERVATIONDEPTH abc\n")])
    assert configs[1]["settings"] == {"RESERVATIONDEPTH": "abc"}
