"""benchdoc.envdiff: what differs between two runs' environments, most consequential first."""

from __future__ import annotations

import copy

from benchdoc.envdiff import EnvDifference, environment_diff, flatten, hostnames, mixes_machines

OLD_STACK = {
    "host": {"hostname": "gpu-a", "os": "Linux 6.8", "python": "3.11.7", "cpu_model": "EPYC 9654",
             "cpu_count": 192, "memory_gb": 1511.6},
    "gpu": {"count": 8, "models": ["H100 80GB HBM3"] * 8, "driver": "570.86", "cuda": "12.8"},
    "packages": {"torch": "2.5.1", "sglang": "0.4.3", "flashinfer": "0.2.0", "numpy": "1.26.4"},
    "env_vars": {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7"},
    "git": {"commit": "3f2a9c1d0b7e6a5f4c3b2a1908f7e6d5c4b3a291", "dirty": False},
}


def new_stack() -> dict:
    env = copy.deepcopy(OLD_STACK)
    env["host"]["hostname"] = "gpu-b"
    env["host"]["memory_gb"] = 1511.5
    env["gpu"]["driver"] = "580.65"
    env["gpu"]["cuda"] = "13.0.1"
    env["packages"]["torch"] = "2.9.0"
    env["packages"]["sglang"] = "0.5.2"
    env["packages"]["numpy"] = "2.1.0"
    env["env_vars"]["NCCL_ALGO"] = "Tree"
    env["git"]["commit"] = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
    return env


def test_a_stack_upgrade_lists_every_difference_most_important_first() -> None:
    differences = environment_diff(OLD_STACK, new_stack())
    assert [d.key for d in differences] == [
        "gpu.driver",
        "gpu.cuda",
        "packages.torch",
        "packages.sglang",
        "env_vars.NCCL_ALGO",
        "git.commit",
        "host.hostname",
        "host.memory_gb",
        "packages.numpy",
    ]
    cuda = differences[1]
    assert (cuda.a, cuda.b) == ("12.8", "13.0.1")
    assert cuda.text() == "CUDA 12.8 -> 13.0.1"
    assert cuda.important
    assert not differences[-1].important


def test_texts_name_things_as_people_do() -> None:
    texts = [d.text() for d in environment_diff(OLD_STACK, new_stack())]
    assert "driver 570.86 -> 580.65" in texts
    assert "torch 2.5.1 -> 2.9.0" in texts
    assert "NCCL_ALGO (none) -> Tree" in texts
    assert "commit 3f2a9c1d0b7e -> 9e8d7c6b5a4f" in texts
    assert "host gpu-a -> gpu-b" in texts


def test_identical_snapshots_have_no_differences() -> None:
    assert environment_diff(OLD_STACK, copy.deepcopy(OLD_STACK)) == []


def test_ignored_keys_are_left_out() -> None:
    keys = [d.key for d in environment_diff(OLD_STACK, new_stack(), ignore=["host.*", "git.commit"])]
    assert "host.memory_gb" not in keys and "host.hostname" not in keys and "git.commit" not in keys
    assert "gpu.cuda" in keys


def test_missing_parts_and_a_machine_without_gpus() -> None:
    cpu_only = {"host": {"hostname": "laptop"}, "gpu": None}
    differences = environment_diff(OLD_STACK, cpu_only)
    by_key = {d.key: d for d in differences}
    assert by_key["gpu.models"] == EnvDifference("gpu.models", ("H100 80GB HBM3",) * 8, None)
    assert by_key["gpu.models"].text() == "GPU " + ", ".join(["H100 80GB HBM3"] * 8) + " -> (none)"
    assert by_key["packages.torch"].b is None
    assert differences[0].key == "gpu.models"
    assert environment_diff({}, None) == []
    assert [d.key for d in environment_diff(None, {"git": {"commit": "abc"}})] == ["git.commit"]


def test_gpu_lists_are_compared_whole() -> None:
    mixed = copy.deepcopy(OLD_STACK)
    mixed["gpu"]["models"] = ["H100 80GB HBM3"] * 7 + ["H200"]
    [difference] = environment_diff(OLD_STACK, mixed)
    assert difference.key == "gpu.models"
    assert difference.b[-1] == "H200"


def test_flatten_uses_dotted_keys_and_drops_nulls() -> None:
    flat = flatten({"gpu": {"cuda": "12.8", "driver": None}, "git": {"dirty": False}, "tags": ["a", "b"]})
    assert flat == {"gpu.cuda": "12.8", "git.dirty": False, "tags": ("a", "b")}


def test_mixing_machines_is_detected_across_and_within_sides() -> None:
    a = [OLD_STACK, copy.deepcopy(OLD_STACK)]
    assert not mixes_machines(a, [copy.deepcopy(OLD_STACK)])
    assert mixes_machines(a, [new_stack()])
    assert mixes_machines([OLD_STACK, new_stack()])
    assert not mixes_machines([OLD_STACK, {}, None, {"host": None}], [])  # unknown hosts are not evidence
    assert hostnames([OLD_STACK, new_stack(), {"host": {"hostname": ""}}]) == {"gpu-a", "gpu-b"}
