import io

import pytest

from maui_py.model import Resources
from maui_py.sim.cluster import (ClusterSpecError, cluster_from_option, from_trace_header,
                                 load_cluster, parse_cluster)
from maui_py.sim.swf import SwfHeader, read_swf
from tests.traces import trace_path


def test_simple_group():
    nodes = parse_cluster("128x8")
    assert len(nodes) == 128
    assert nodes[0].name == "node001" and nodes[-1].name == "node128"
    assert all(n.resources == Resources(procs=8) for n in nodes)
    assert all(not n.features and not n.partitions for n in nodes)


def test_groups_with_options_and_own_prefix():
    nodes = parse_cluster(
        "2x8 + 16x64:mem=256000:gpu=4:features=fast,ib:partition=batch:prefix=gpu")
    assert [n.name for n in nodes[:3]] == ["node1", "node2", "gpu01"]
    assert nodes[-1].name == "gpu16"
    gpu = nodes[2]
    assert gpu.resources == Resources.of(64, 256000, gpu=4)
    assert gpu.features == frozenset({"fast", "ib"})
    assert gpu.partitions == frozenset({"batch"}) and gpu.serves("batch")
    assert not gpu.serves("debug") and nodes[0].serves("debug")


def test_default_numbering_continues_across_groups_with_one_width():
    names = [n.name for n in parse_cluster("8x1+2x2")]
    assert names == [f"node{i:02d}" for i in range(1, 11)]
    nodes = parse_cluster("2x4:prefix=a+3x4+2x4:prefix=a")
    assert [n.name for n in nodes] == ["a1", "a2", "node1", "node2", "node3", "a3", "a4"]


def test_memory_units():
    assert parse_cluster("1x1:mem=2G")[0].resources.mem == 2048
    assert parse_cluster("1x1:mem=1T")[0].resources.mem == 1024 * 1024
    assert parse_cluster("1x1:mem=512")[0].resources.mem == 512


@pytest.mark.parametrize("spec, fragment", [
    ("128y8", "segment 1 '128y8': expected NODESxPROCS"),
    ("4x8+0x8", "segment 2 '0x8': expected NODESxPROCS with both >= 1"),
    ("4x8:mem=lots", "mem= expects MB or a size like 256G, got 'lots'"),
    ("4x8:color=red", "key one of mem, gpu, features, partition, prefix, got 'color=red'"),
    ("4x8:gpu", "expected key=value"),
    ("4x8:gpu=2:gpu=3", "gpu= given twice"),
    ("4x8:gpu=two", "gpu= expects a whole number"),
    ("4x8:features=a,,b;c", "features= expects a comma-separated list of names"),
    ("4x8:prefix=9x", "prefix= expects a name starting with a letter"),
    ("  + ", "empty cluster description"),
    ("10x1+1x1:prefix=node0", "node name 'node01' is produced twice"),
])
def test_bad_specs_say_where_and_what(spec, fragment):
    with pytest.raises(ClusterSpecError) as err:
        parse_cluster(spec)
    assert fragment in str(err.value)
    assert isinstance(err.value, ValueError)


def test_file_with_comments_blank_lines_and_plus(tmp_path):
    path = tmp_path / "cluster.txt"
    path.write_text("# thin nodes\n4x16:partition=batch  # rack A\n\n2x32 + 1x64:prefix=fat\n")
    nodes = load_cluster(path)
    assert [n.name for n in nodes] == [f"node{i}" for i in range(1, 7)] + ["fat1"]
    assert [n.resources.procs for n in nodes] == [16] * 4 + [32] * 2 + [64]
    assert cluster_from_option(str(path)) == nodes == cluster_from_option(path)
    assert cluster_from_option("4x16:partition=batch+2x32+1x64:prefix=fat") == nodes


def test_file_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("4x16\n# fine\n2x32:mem=\n")
    with pytest.raises(ClusterSpecError, match=r"bad\.txt line 3 '2x32:mem=': mem="):
        load_cluster(path)


def header_of(text):
    return read_swf(io.StringIO(text))[0]


def test_from_trace_header_uses_max_procs_then_max_nodes_then_the_caller():
    both = header_of("; MaxNodes: 5544\n; MaxProcs: 93312\n")
    assert len(from_trace_header(both, procs_per_node=16)) == 5832
    nodes_only = header_of("; MaxNodes: 256\n")
    nodes = from_trace_header(nodes_only)
    assert len(nodes) == 256 and nodes[0].resources == Resources(procs=1)
    assert len(from_trace_header(header_of("; MaxProcs: -1\n"), max_procs_seen=40)) == 40
    odd = from_trace_header(header_of("; MaxProcs: 10\n"), procs_per_node=4)
    assert [n.resources.procs for n in odd] == [4, 4, 4]
    with pytest.raises(ClusterSpecError, match="no MaxProcs or MaxNodes"):
        from_trace_header(SwfHeader())
    with pytest.raises(ClusterSpecError, match="procs_per_node"):
        from_trace_header(both, procs_per_node=0)


@pytest.mark.trace
def test_kth_default_cluster():
    header, _ = read_swf(trace_path("KTH-SP2-1996-2.1-cln.swf.gz"))
    nodes = from_trace_header(header)
    assert len(nodes) == 100 and sum(n.resources.procs for n in nodes) == 100
    assert nodes[0].name == "node001" and nodes[-1].name == "node100"
