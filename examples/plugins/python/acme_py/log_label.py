"""ACM002 `log-volume-label`: volumes holding user databases' log files are labelled with the
pack's word (`LOG`). The same rule as the Rust acme pack's `log_label.rs`: same docs, same
findings, same not-evaluated entries."""

import needs
import rust_text
from volumes import collector_reason, display_name, is_user, volumes_holding
from wit_world.imports import facts as f
from wit_world.imports import types as t

CODE = "ACM002"

# The Rust rule's doc comment, as spindle shows it (`RuleMeta::docs`).
DOCS = r"""## What it checks
Every volume that holds a log file of a user database has a label containing the word
`log_label_word` of the pack's `config` table (`LOG` by default), compared without case:
`SQLLOG01`, `SQLLogs` and `sqllog` pass, `SQLData` and an empty label do not. The volume
is found through the log files, by volume identity. A volume whose label was not
collected is not evaluated. System databases and tempdb are out of scope.

## Why it matters
Acme storage standard STD-SQL-004 §4 (example) labels log volumes so that whoever works on
the storage sees what a volume carries before touching it: the SAN team extends, moves or
snapshots LUNs by label, and the restore runbook finds the log volume by it. An
unlabelled log volume is the one that gets reformatted by mistake, or left out of a
consistent snapshot of data and log.

## How to fix
Set the label; it changes no data and needs no downtime:
- Windows: `Set-Volume -DriveLetter L -NewFileSystemLabel SQLLOG01` (for a mounted folder,
  `Get-Volume -FilePath L:\SQLLog01\ | Set-Volume -NewFileSystemLabel SQLLOG01`).
- Linux: `xfs_admin -L sqllog01 /dev/md1` (the filesystem unmounted), or
  `e2label /dev/sdc1 sqllog01` for ext4.

If the log shares a volume with data (the label then says `SQLData`), the fix is to move
the log to a volume of its own: see the builtin rule PLC001.

## References
- Acme storage standard STD-SQL-004 §4 (example): volume labels.
- Microsoft Learn, `Set-Volume` (`-NewFileSystemLabel`); `xfs_admin(8)` (`-L`).
"""

META = t.RuleMeta(
    code=CODE,
    name="log-volume-label",
    summary="Volumes holding user log files are labelled LOG",
    docs=DOCS,
    severity=t.Severity.NOTE,
    params=[],
    # spindle reports the rule not evaluated for a host without these and does not run it;
    # check() still guards against them, for hosts that do not (the native tests).
    needs=[t.Need.VOLUMES, t.Need.DATABASE_FILES],
)


def check(host: f.HostFacts, log_label_word: str, out: t.CheckOutput) -> None:
    """Appends ACM002's findings and not-evaluated entries for `host` to `out`."""
    unmet = needs.unmet(host, CODE, [needs.VOLUMES, needs.DATABASE_FILES])
    if unmet is not None:
        out.not_evaluated.append(unmet)
        return
    word = rust_text.trim(log_label_word)
    wanted = word.lower()
    held = volumes_holding(
        host, CODE, lambda db, file: is_user(db) and file.file_type == f.FileType.LOG, out.not_evaluated
    )
    for h in held:
        v = h.volume
        label = v.volume_label
        if label is None:
            # `Ctx::need`: the fact is missing, with the collector's reason when it gave one.
            reason = collector_reason(host, "label")
            out.not_evaluated.append(t.NotEvaluated(code=CODE, entity=v.key, missing="label", reason=reason))
            continue
        if wanted in label.lower():
            continue
        shown = "no label" if label == "" else f'the label "{label}"'
        message = (
            f"volume {display_name(v)} holds {h.describe()} but has {shown}, "
            f'without the word "{word}" log volumes carry'
        )
        out.findings.append(
            t.Finding(
                code=CODE,
                severity=None,
                message=message,
                measured=f'"{label}"',
                expected=f'a label containing "{word}"',
                measured_quantity=None,
                expected_quantity=None,
                entity=v.key,
                field="label",
                fix=None,
            )
        )
