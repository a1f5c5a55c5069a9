"""Host expressions (issue 18): SRCFG HOSTLIST and setres read a Slurm hostlist or node name,
a Maui regular expression only when the text is clearly one, warn when a regular expression
matches more nodes than its hostlist reading, and refuse a hostlist too big to expand."""

from __future__ import annotations

import pytest

from maui_py.cfg import ConfigError, parse_config
from maui_py.cli import check_config, setres
from maui_py.cli.common import CommandError
from maui_py.model import Node, Resources, hostlist
from maui_py.model.hostlist import Reading
from maui_py.policy.standing import instances, match_hosts

TOUR = [f"node{i}" for i in range(1, 65)]       # a cluster where node4 is a prefix of node40-node49
PADDED = [f"node{i:02d}" for i in range(1, 11)]


@pytest.mark.parametrize("text, reading", [
    ("node4", Reading.HOSTLIST), ("node[01-04,7]", Reading.HOSTLIST), ("node0[1-4]", Reading.HOSTLIST),
    ("gpu1.cluster.example", Reading.HOSTLIST), ("ALL", Reading.ALL), ("all", Reading.ALL),
    ("^node4", Reading.REGEX), ("node0[1-4]$", Reading.REGEX), ("node.*", Reading.REGEX),
    ("n01|n02", Reading.REGEX), ("(a)", Reading.REGEX), ("node[a-z]", Reading.REGEX),
    ("n+", Reading.REGEX), ("n\\d", Reading.REGEX),
])
def test_how_a_text_is_read(text, reading):
    assert hostlist.read(text) is reading


def test_a_node_name_is_that_node_not_every_node_it_prefixes():
    assert hostlist.match("node4", TOUR).hosts == ("node4",)
    assert match_hosts(("node4",), [Node(n, Resources.of(1)) for n in TOUR]) == ("node4",)


def test_slurm_hostlists_name_exactly_their_hosts():
    assert hostlist.match("node[01-04,7]", PADDED).hosts == ("node01", "node02", "node03", "node04")
    assert hostlist.match("node0[1-4]", PADDED).hosts == ("node01", "node02", "node03", "node04")
    assert hostlist.match("node[1-4,7]", TOUR).hosts == ("node1", "node2", "node3", "node4", "node7")
    found = hostlist.match("node0[1-4]", TOUR)          # the README's old example on the tour cluster
    assert found.hosts == () and "names no node" in found.warning


def test_a_regex_that_matches_more_than_its_hostlist_reading_is_warned_about():
    found = hostlist.match("^node4", TOUR)
    assert found.reading is Reading.REGEX and len(found.hosts) == 11
    assert found.warning == ("regular expression '^node4' matches 11 nodes (node[4,40-49]), the hostlist "
                             "'node4' names 1: write 'node4' (a hostlist) or anchor it ('^node4$')")
    assert hostlist.match("^node4$", TOUR) == hostlist.HostMatch("^node4$", Reading.REGEX, ("node4",))
    assert hostlist.match("node0[1-4]$", PADDED).warning == ""        # as many as the hostlist names
    assert hostlist.match("node.*", TOUR).warning == ""               # clearly meant as a pattern
    assert hostlist.match("^node", TOUR).warning == ""                # a prefix: no node is `node`
    assert hostlist.match("^gpu", TOUR).warning == "regular expression '^gpu' matches no node"


def test_sizes_are_bounded_and_bad_expressions_are_errors():
    with pytest.raises(hostlist.HostlistError, match="more than"):
        hostlist.read("n[1-99999999999]")
    with pytest.raises(hostlist.HostlistError, match="more than"):
        hostlist.match("a[1-1000]b[1-1000]", TOUR)
    with pytest.raises(hostlist.HostlistTooLarge):                      # many terms, each small
        hostlist.read(",".join(f"t{k}[1-60000]" for k in range(3)))
    with pytest.raises(hostlist.HostlistError, match="not a valid regular expression"):
        hostlist.match("^(node", TOUR)
    nodes = [Node(n, Resources.of(1)) for n in TOUR]
    assert match_hosts(("^(node", "node2"), nodes) == ("node2",)       # at run time: skipped


def test_the_config_keeps_hostlists_whole_and_refuses_what_cannot_be_read():
    cfg = parse_config("SRCFG[a] HOSTLIST=node[01-04,7],^(gpu|big)[0-9]$:n9 PERIOD=INFINITY\n", "t.cfg")
    assert cfg.object("SRCFG", "a")["HOSTLIST"] == ("node[01-04,7]", "^(gpu|big)[0-9]$", "n9")
    assert parse_config("SRCFG[a] HOSTLIST=[ALL]\n", "t.cfg").object("SRCFG", "a")["HOSTLIST"] == ("ALL",)
    for bad, why in (("n[1-99999999]", "names more than 100000 hosts"),
                     ("^(x", "is not a valid regular expression")):
        with pytest.raises(ConfigError, match=r"t\.cfg:1:19: error: SRCFG\[a\] HOSTLIST: .*" + why):
            parse_config(f"SRCFG[a] HOSTLIST={bad}\n", "t.cfg")


def test_standing_reservations_use_the_hostlist_reading():
    cfg = parse_config("SRCFG[m] HOSTLIST=node[1-2,7] PERIOD=INFINITY USERLIST=root\n", "t.cfg")
    nodes = [Node(n, Resources.of(1)) for n in TOUR]
    [(res, _access)] = instances(cfg, nodes, 1_000_000)
    assert res.hosts == ("node1", "node2", "node7")


def test_setres_reads_its_nodes_the_same_way():
    assert setres.resources(["node[01-04,7]"], PADDED) == {
        "hosts": ["node01", "node02", "node03", "node04"], "warnings": []}
    assert setres.resources(["node1", "node2,node3"], TOUR)["hosts"] == ["node1", "node2", "node3"]
    what = setres.resources(["^node4"], TOUR)
    assert len(what["hosts"]) == 11 and "matches 11 nodes" in what["warnings"][0]
    with pytest.raises(CommandError, match="cannot determine nodelist"):
        setres.resources(["node0[1-4]"], TOUR)
    with pytest.raises(CommandError, match="invalid node expression") as bad:
        setres.resources(["n[1-99999999]"], TOUR)
    assert bad.value.status == 2


def test_check_config_shows_the_matched_hosts_and_warns(tmp_path):
    import io
    path = tmp_path / "maui.cfg"
    path.write_text("SRCFG[gpu] HOSTLIST=^node4 PERIOD=DAY USERLIST=root\n"
                    "SRCFG[web] HOSTLIST=node[1-3],nodeX PERIOD=DAY\n")
    out = io.StringIO()
    assert check_config.check_file(str(path), out=out) == 0
    assert f"{path}:2: note: SRCFG[web] HOSTLIST: 'node[1-3]' is a hostlist naming 3 hosts: node[1-3]" \
        in out.getvalue()
    out = io.StringIO()
    assert check_config.check_file(str(path), out=out, nodes=TOUR) == 0
    lines = out.getvalue().splitlines()
    assert f"{path}:1: note: SRCFG[gpu] HOSTLIST: '^node4' (regular expression) matches 11 nodes: node[4,40-49]" \
        in lines
    assert f"{path}:2: note: SRCFG[web] HOSTLIST: 'node[1-3]' (hostlist) matches 3 nodes: node[1-3]" in lines
    assert f"{path}:1: warning: SRCFG[gpu] HOSTLIST: regular expression '^node4' matches 11 nodes" \
        f" (node[4,40-49]), the hostlist 'node4' names 1: write 'node4' (a hostlist) or anchor it ('^node4$')" \
        in lines
    assert f"{path}:2: warning: SRCFG[web] HOSTLIST: 'nodeX' names no node" in lines
    assert lines[-1] == f"{path}: 0 errors, 2 warnings: valid"
    assert check_config.check_file(str(path), out=io.StringIO(), nodes=TOUR, strict=True) == 1
