"""Which JDK the Java targets run on: the campaign key `jdk` (or `--jdk`), resolved and validated.

A JDK is named by its feature version ("17", "25"), found among the installed JDKs (JAVA_HOME, /usr/lib/jvm/*,
the java on PATH), or by a path (a JDK home or its bin/java). The resolved `java` fills the descriptors'
{java} placeholder, and its `java -version` goes into the run's manifest.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from orbench.errors import UserError

# Where installed JDKs live on Debian and Ubuntu (the default JDK and, on these machines, a Temurin 25).
JVM_DIRS = (Path("/usr/lib/jvm"),)


@dataclass(frozen=True)
class Jdk:
    java: str                      # absolute path of bin/java
    feature: int                   # 17, 25, ...
    version: tuple[str, ...]       # `java -version`, line by line (what the manifest records)

    def as_dict(self) -> dict:
        return {"java": self.java, "feature": self.feature, "version": list(self.version)}


@cache
def probe(java: str) -> Jdk | None:
    """`java -version` of an executable: None when it does not run or says no version."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (out.stdout + out.stderr).strip()
    match = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if out.returncode != 0 or match is None:
        return None
    feature = int(match.group(1))
    if feature == 1 and match.group(2):  # "1.8.0_392" is Java 8
        feature = int(match.group(2))
    resolved = shutil.which(java) or java
    return Jdk(java=str(Path(resolved).resolve()), feature=feature, version=tuple(text.splitlines()))


def installed_jdks() -> list[Jdk]:
    """Every JDK found, by java path, without duplicates (symlinked directories count once)."""
    candidates: list[str] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(str(Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    for base in JVM_DIRS:
        if base.is_dir():
            candidates += [str(d / "bin" / "java") for d in sorted(base.iterdir()) if (d / "bin" / "java").exists()]
    if shutil.which("java"):
        candidates.append(shutil.which("java") or "java")
    found: dict[str, Jdk] = {}
    for java in candidates:
        jdk = probe(java)
        if jdk is not None:
            found.setdefault(jdk.java, jdk)
    return list(found.values())


def resolve_jdk(spec: str, where: str = "jdk") -> Jdk:
    """A feature version ("25") or a path; `where` names the key or flag in the error (file: key jdk)."""
    spec = spec.strip()
    if re.fullmatch(r"\d+", spec):
        feature = int(spec)
        matches = [j for j in installed_jdks() if j.feature == feature]
        if matches:
            return matches[0]
        found = ", ".join(f"{j.feature} ({j.java})" for j in installed_jdks()) or "none"
        raise UserError(f'{where}: value "{spec}": no JDK {feature} installed (found: {found}); '
                        "give an installed feature version or the path of a JDK")
    path = Path(spec).expanduser()
    java = path / "bin" / "java" if path.is_dir() else path
    if not java.exists():
        raise UserError(f'{where}: value "{spec}": no such JDK (neither a feature version like "25", '
                        f"nor a JDK directory or java executable: {java} does not exist)")
    jdk = probe(str(java))
    if jdk is None:
        raise UserError(f'{where}: value "{spec}": {java} does not run as a JVM (`{java} -version` failed)')
    return jdk


def newest_jdk(at_least: int) -> Jdk | None:
    """The newest installed JDK of feature version `at_least` or later (tests pick one for java-ffm)."""
    fitting = [j for j in installed_jdks() if j.feature >= at_least]
    return max(fitting, key=lambda j: j.feature) if fitting else None
