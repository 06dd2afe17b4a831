"""The TAO target is built only where a TAO is found, and says clearly why it is missing elsewhere.

CI has no TAO (it is in no package registry), so these tests check the "not found" side with real CMake
configure runs and real descriptors; the contract test (test_contract.py) runs the real TAO workers where
a TAO was found at build time.
"""

import os
import shutil
import subprocess

import pytest
from orbench.hosts.readiness import unavailable_reason
from orbench.paths import repo_root
from orbench.targets.descriptor import read_descriptor, read_targets

HINT = "set ACE_ROOT/TAO_ROOT to an installed TAO and run make cpp"


def test_tao_descriptor_says_how_to_get_it_when_not_built():
    tao = read_targets()["tao"]
    assert tao.baseline == "c-socket" and tao.language == "c++"
    why = unavailable_reason(tao)
    built = all((repo_root() / f).exists() for f in tao.required_files)
    if built:
        assert why is None
    else:
        assert why is not None and "orbench-tao-" in why and HINT in why


def test_requires_hint_replaces_the_make_advice(tmp_path):
    path = tmp_path / "orby.toml"
    path.write_text('name = "orby"\ndescription = "x"\nlanguage = "c++"\nkind = "socket"\nbuild = "cpp"\n'
                    '[requires]\nfiles = ["no/such/file"]\nhint = "install Orby first"\n'
                    '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\n'
                    'payload_types = ["octets"]\n')
    why = unavailable_reason(read_descriptor(path))
    assert why == "not built: no/such/file is missing (install Orby first)"


def test_requires_hint_must_be_text(tmp_path):
    from orbench.errors import UserError

    path = tmp_path / "orbz.toml"
    path.write_text('name = "orbz"\ndescription = "x"\nlanguage = "c++"\nkind = "socket"\nbuild = "cpp"\n'
                    '[requires]\nhint = 3\n[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n'
                    '[supports]\nmodes = ["twoway"]\npayload_types = ["octets"]\n')
    with pytest.raises(UserError, match=r"orbz.toml: key requires.hint: value 3: 3 is not of type 'string'"):
        read_descriptor(path)


def _configure(build_dir, *defines: str) -> subprocess.CompletedProcess:
    """A real configure of cpp/ with no TAO anywhere: no ACE_ROOT/TAO_ROOT, tao_idl off PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("ACE_ROOT", "TAO_ROOT")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and not os.path.exists(os.path.join(p, "tao_idl")))
    return subprocess.run(["cmake", "-S", str(repo_root() / "cpp"), "-B", str(build_dir), *defines],
                          capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
@pytest.mark.slow  # a whole CMake configure
def test_build_without_tao_skips_it_with_one_message(tmp_path):
    proc = _configure(tmp_path / "auto", "-DACE_ROOT=/nonexistent/ace")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "TAO" in line]
    assert lines == [
        "TAO not found (ACE_ROOT='/nonexistent/ace' TAO_ROOT='/nonexistent/ace/TAO': not found: "
        "TAO_IDL_EXECUTABLE, ACE_INCLUDE_DIR, TAO_INCLUDE_DIR, ACE_LIBRARY, TAO_LIBRARY, "
        "TAO_PORTABLESERVER_LIBRARY, TAO_ANYTYPECODE_LIBRARY): the tao target is not built; "
        "set ACE_ROOT (and TAO_ROOT, default $ACE_ROOT/TAO) to an installed TAO and run make cpp"
    ]

    required = _configure(tmp_path / "on", "-DORBENCH_WITH_TAO=ON")
    assert required.returncode != 0
    error = " ".join(required.stderr.split())  # CMake wraps an error's text
    assert "ORBENCH_WITH_TAO=ON but TAO not found (ACE_ROOT is not set and tao_idl is not on PATH)" in error
    assert error.count("to an installed TAO and run make cpp") == 1


def test_cpp_orbs_campaign_is_valid():
    from orbench.campaign.spec import read_campaign
    from orbench.paths import campaigns_dir

    c = read_campaign(campaigns_dir() / "cpp-orbs.toml")
    assert {t.name for t in c.targets} == {"omniorb", "tao", "c-socket"}
    assert c.settings.payload_bytes == (1, 1024, 32168)
