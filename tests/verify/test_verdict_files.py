"""What a verdict file covers (verify.read_verdicts): every file of the run by sha256, each change
named once; a verdict of an earlier version, which hashed the results file only, names every other
file as not covered (once each) and the results file only where it changed. Whether it was made
here (verify.signing): only a document with a valid MAC under this machine's key, kept in the
config folder (0600, created exclusively, no link followed); a hand-written one, an edited one and
one made under another key are claims."""

from __future__ import annotations

import hashlib
import json
import os
import stat

import pytest

from lmms_comparative.verify import covered_files, read_verdicts, signing


@pytest.fixture(autouse=True)
def config(tmp_path, monkeypatch):
    """This machine's config folder, in the test's own folder (never the real home)."""
    monkeypatch.setenv(signing.CONFIG_VARIABLE, str(tmp_path / "config"))
    return tmp_path / "config"


def _run(folder):
    folder.mkdir()
    results = folder / "20260101_000000_results.json"
    results.write_text('{"results": {}}')
    (folder / "20260101_000000_samples_subtlebench_at.jsonl").write_text('{"doc_id": 0}\n')
    (folder / "20260101_000000_samples_subtlebench_sp.jsonl").write_text('{"doc_id": 0}\n')
    return results


def test_a_current_verdict_and_each_change_named_once(tmp_path):
    results = _run(tmp_path / "run")
    verdict = tmp_path / "run" / "20260101_000000_verify.json"
    verdict.write_text(json.dumps({"verdict": "PASS", "files": covered_files(results)}))
    assert read_verdicts(results)["current"] is True and read_verdicts(results)["changed"] == []  # the honest twin
    (tmp_path / "run" / "20260101_000000_samples_subtlebench_at.jsonl").write_text('{"doc_id": 1}\n')
    (tmp_path / "run" / "20260101_000000_samples_subtlebench_st.jsonl").write_text('{"doc_id": 0}\n')
    found = read_verdicts(results)
    assert found["current"] is False and found["changed"] == [
        "20260101_000000_samples_subtlebench_at.jsonl",
        "20260101_000000_samples_subtlebench_st.jsonl",
    ]


def test_an_older_verdict_names_each_uncovered_file_once(tmp_path):
    results = _run(tmp_path / "run")
    verdict = tmp_path / "run" / "20260101_000000_verify.json"
    verdict.write_text(
        json.dumps({"verdict": "PASS", "results_sha256": hashlib.sha256(results.read_bytes()).hexdigest()})
    )
    found = read_verdicts(results)
    assert found["current"] is False
    assert found["changed"] == [
        f"20260101_000000_samples_subtlebench_{t}.jsonl (not covered by this older verdict)" for t in ("at", "sp")
    ]
    results.write_text('{"results": {"x": {}}}')
    assert read_verdicts(results)["changed"][0] == results.name


def test_only_a_verdict_signed_here_is_made_here(tmp_path, config, monkeypatch):
    results = _run(tmp_path / "run")
    verdict = tmp_path / "run" / "20260101_000000_verify.json"
    document = {"verdict": "PASS", "files": covered_files(results)}
    # Hand-written with the right hashes (what a forger can do): current, but a claim.
    verdict.write_text(json.dumps(document))
    assert not (config / "verdict.key").exists()  # reading makes no key
    found = read_verdicts(results)
    assert found["current"] is True and found["made_here"] is False
    verdict.write_text(
        json.dumps({**document, "made_here": True, signing.MAC_FIELD: "0" * 64})
    )  # a field of ours or a MAC made up
    assert read_verdicts(results)["made_here"] is False
    # The honest twin: signed with this machine's key, laid out in any way.
    signed = signing.sign(document)
    verdict.write_text(json.dumps(signed, indent=3))
    assert read_verdicts(results)["made_here"] is True and read_verdicts(results)["current"] is True
    # An edited signed verdict, and one signed under another machine's key, are claims.
    verdict.write_text(json.dumps({**signed, "verdict": "FAIL"}))
    assert read_verdicts(results)["made_here"] is False
    verdict.write_text(json.dumps(signed))
    monkeypatch.setenv(signing.CONFIG_VARIABLE, str(tmp_path / "another machine"))
    assert read_verdicts(results)["made_here"] is False


def test_the_key_is_made_once_for_this_user_alone_and_never_through_a_link(tmp_path, config, monkeypatch):
    key = signing.key(create=True)
    path = config / "verdict.key"
    assert len(key) == signing.KEY_BYTES and path.read_bytes() == key and signing.key(create=True) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and [p.name for p in config.iterdir()] == ["verdict.key"]
    # Readable by others: whoever reads it could sign a PASS.
    os.chmod(path, 0o644)
    with pytest.raises(signing.KeyProblem, match="readable by no one else"):
        signing.key(create=True)
    os.chmod(path, 0o600)
    # A link where the key goes: refused, its target neither read nor written.
    monkeypatch.setenv(signing.CONFIG_VARIABLE, str(tmp_path / "linked"))
    (tmp_path / "linked").mkdir()
    target = tmp_path / "target"
    (tmp_path / "linked" / "verdict.key").symlink_to(target)
    with pytest.raises(signing.KeyProblem, match="a link"):
        signing.key(create=True)
    assert not target.exists()
    target.write_bytes(b"k" * signing.KEY_BYTES)
    with pytest.raises(signing.KeyProblem, match="a link"):
        signing.key(create=False)
    # A file of another size is not a key.
    monkeypatch.setenv(signing.CONFIG_VARIABLE, str(tmp_path / "short"))
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "verdict.key").write_bytes(b"k" * 8)
    os.chmod(tmp_path / "short" / "verdict.key", 0o600)
    with pytest.raises(signing.KeyProblem, match="holds 32 bytes, this one 8"):
        signing.key(create=True)


def test_the_config_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(signing.CONFIG_VARIABLE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert signing.key_path() == tmp_path / "xdg" / "lmms-comparative" / "verdict.key"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")  # not absolute: ignored, as the spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert signing.key_path() == tmp_path / "home" / ".config" / "lmms-comparative" / "verdict.key"
