"""The dangerous commands an allow rule would also let through.

A prefix rule allows everything that starts with its pattern, so an allow for `git push` also
allows `git push --force`. Two kinds are checked, each against the policy with the rule added:
- well-known destructive forms of the commands the pattern covers (the table below);
- the spellings that escape the policy's own stricter rules (lint's evasion analysis,
  `shellgate.lint.evasion.variants`): `rm -fr` for a forbidden `rm -rf`, `git -C . push` …
A variant is reported when no rule matches it yet: the new allow would be the only rule
that decides it.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellgate.approval.amendments import AdmittedVariant
from shellgate.lint.evasion import variants
from shellgate.rules.decision import Decision
from shellgate.rules.policy import Policy
from shellgate.rules.rule import PrefixRule

# Forms that destroy work or reach outside: what a person approving "always" rarely means.
DESTRUCTIVE: tuple[tuple[str, ...], ...] = (
    ("git", "push", "--force"),
    ("git", "push", "origin", "--delete", "main"),
    ("git", "reset", "--hard"),
    ("git", "clean", "-fdx"),
    ("git", "checkout", "--", "."),
    ("git", "branch", "-D", "main"),
    ("git", "stash", "clear"),
    ("git", "-C", "/", "push", "--force"),
    ("rm", "-rf", "/"),
    ("find", ".", "-delete"),
    ("find", ".", "-exec", "rm", "{}", ";"),
    ("chmod", "-R", "777", "/"),
    ("chown", "-R", "nobody", "/"),
    ("dd", "if=/dev/zero", "of=/dev/sda"),
    ("docker", "run", "--privileged", "-v", "/:/host", "alpine"),
    ("docker", "system", "prune", "-af"),
    ("kubectl", "delete", "namespace", "default"),
    ("npm", "publish"),
    ("npm", "exec", "--", "any-package"),
    ("npx", "any-package"),
    ("pip", "install", "any-package"),
    ("curl", "-o", "/etc/profile", "http://example.com"),
    ("sed", "-i", "s/a/b/", "/etc/passwd"),
    ("terraform", "destroy", "-auto-approve"),
    ("make", "-f", "/tmp/any.mk"),
    ("python", "-c", "import os; os.system('rm -rf ~')"),
    ("python3", "-c", "import os; os.system('rm -rf ~')"),
    ("node", "-e", "require('child_process').execSync('rm -rf ~')"),
    ("bash", "-c", "rm -rf ~"),
    ("sh", "-c", "rm -rf ~"),
    ("env", "rm", "-rf", "/"),
    ("xargs", "rm", "-rf"),
    ("sudo", "rm", "-rf", "/"),
)


def admitted(prefix: Sequence[str], policy: Policy, limit: int = 4) -> tuple[AdmittedVariant, ...]:
    """Dangerous commands an allow for `prefix` would admit under `policy` (at most `limit`)."""
    prefix = tuple(prefix)
    candidates: list[tuple[tuple[str, ...], str]] = []
    for argv in DESTRUCTIVE:
        if argv[: len(prefix)] == prefix and len(argv) > len(prefix):
            candidates.append((argv, "destructive"))
            continue
        # The same destructive flags after a longer prefix of the same subcommand:
        # an allow for `git push origin main` admits `git push origin main --force`.
        common = next((i for i, (a, b) in enumerate(zip(argv, prefix, strict=False)) if a != b),
                      min(len(argv), len(prefix)))  # fmt: skip
        if common >= 2 and common < len(argv):
            candidates.append(((*prefix, *argv[common:]), "destructive"))
    for rule in policy.rules:
        if rule.decision is Decision.ALLOW:
            continue
        for variant in variants(rule):
            candidates.append((variant.argv, f"{variant.what}: escapes `{_pattern(rule)}`"))
    found: list[AdmittedVariant] = []
    seen: set[tuple[str, ...]] = set()
    for argv, what in candidates:
        if argv in seen or argv[: len(prefix)] != prefix:
            continue
        seen.add(argv)
        # Any rule matching it already (allow, or a stricter one the strictest-wins merge keeps)
        # means the new allow changes nothing for it.
        if policy.matches_for(argv, resolve_host_executables=True):
            continue
        found.append(AdmittedVariant(argv, what))
        if len(found) >= limit:
            break
    return tuple(found)


def _pattern(rule: PrefixRule) -> str:
    return " ".join([rule.first, *("|".join(a) for a in rule.rest)])
