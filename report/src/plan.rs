//! A change plan (see [`spindle_core::plan`]) as a person reads it (text, Markdown) or as a
//! script they review and run (PowerShell, POSIX shell, T-SQL for sqlcmd). Commands are already
//! quoted for their language; everything else (titles, reasons, a rule's or plugin's fix) is
//! untrusted and goes out escaped: as a terminal-safe line in text, Markdown-escaped in
//! Markdown, and only ever inside a one-line comment in a script.

use std::fmt::Write as _;

use spindle_core::plan::{Command, Lang, Phase, Plan, Step};
use spindle_core::quote::{ps_string, sh_word};
use spindle_core::units::plural;
use spindle_core::untrusted;

use crate::text::wrap;

mod formats;

pub use formats::{PLAN_FORMATS, PlanFormat, PlanFormatSpec};

const WIDTH: usize = 100;

/// Writes `plans` (one per host; a script format takes exactly one).
pub fn write(plans: &[Plan], format: PlanFormat, version: &str) -> String {
    (format.spec().render)(plans, version)
}

/// One line, every character a terminal would act on written as a visible escape.
fn line(s: &str) -> String {
    untrusted::escape_for_terminal(s).into_owned()
}

fn summary(plan: &Plan) -> String {
    let destructive = plan.steps.iter().filter(|s| s.destructive).count();
    let manual = plan.phase(Phase::Manual).count();
    let findings: usize = plan.steps.iter().map(|s| s.addresses.len()).sum();
    let mut s = format!(
        "{} for {} finding{}",
        plural(plan.steps.len(), "step"),
        findings,
        if findings == 1 { "" } else { "s" }
    );
    if destructive > 0 {
        write!(s, ", {destructive} destructive").unwrap();
    }
    if manual > 0 {
        write!(s, ", {manual} manual").unwrap();
    }
    s
}

/// `GRW001 ×6, GRW002 ×4`: the codes a step fixes, each once, with how many findings.
fn codes(step: &Step) -> String {
    let mut counts: Vec<(&str, usize)> = vec![];
    for a in &step.addresses {
        match counts.iter_mut().find(|c| c.0 == a.code) {
            Some(c) => c.1 += 1,
            None => counts.push((&a.code, 1)),
        }
    }
    counts
        .iter()
        .map(|(c, n)| if *n == 1 { c.to_string() } else { format!("{c} ×{n}") })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a step that fixes findings says when none of them carries an estimate: silence would
/// read as "nothing to gain".
const NO_ESTIMATE: &str = "no estimate (no public measurement covers this change)";

/// Steps numbered across the plan, in plan order.
fn numbered(plan: &Plan) -> impl Iterator<Item = (usize, &Step)> {
    plan.steps.iter().enumerate().map(|(i, s)| (i + 1, s))
}

fn text(plan: &Plan) -> String {
    let mut out = String::new();
    let host = line(&plan.host);
    writeln!(out, "Change plan for {host} ({}): {}", plan.os, summary(plan)).unwrap();
    writeln!(out, "spindle runs nothing: review each step, then run it yourself, in order.").unwrap();
    let mut phase = None;
    for (n, s) in numbered(plan) {
        if phase != Some(s.phase) {
            phase = Some(s.phase);
            writeln!(out, "\n== {}", s.phase.title()).unwrap();
        }
        let mark = if s.destructive { "  !! DESTRUCTIVE" } else { "" };
        writeln!(out, "\n{n}. {}{mark}", line(&s.title)).unwrap();
        if !s.addresses.is_empty() {
            writeln!(out, "   fixes: {}", line(&codes(s))).unwrap();
        }
        writeln!(out, "{}", wrap::paragraph(&line(&s.why), WIDTH, "   why: ", "        ")).unwrap();
        for p in &s.preconditions {
            writeln!(out, "{}", wrap::paragraph(&line(p), WIDTH, "   before: ", "           ")).unwrap();
        }
        if let Some(g) = &s.gain {
            writeln!(out, "{}", wrap::paragraph(&line(&g.line()), WIDTH, "   gain: ", "         ")).unwrap();
            let assumes = format!("assumes {}", g.assumptions);
            writeln!(out, "{}", wrap::paragraph(&line(&assumes), WIDTH, "         ", "         ")).unwrap();
            let source = format!("source: {} <{}>", g.evidence, g.url);
            writeln!(out, "{}", wrap::paragraph(&line(&source), WIDTH, "         ", "         ")).unwrap();
        } else if !s.addresses.is_empty() {
            writeln!(out, "   gain: {NO_ESTIMATE}").unwrap();
        }
        for c in &s.commands {
            writeln!(out, "   {}:", c.lang.name()).unwrap();
            for l in c.text.lines() {
                writeln!(out, "     {}", line(l)).unwrap();
            }
        }
        if let Some(i) = &s.instructions {
            let escaped = untrusted::message_keeping_lines(i);
            writeln!(out, "{}", wrap::reflow(&escaped, WIDTH, "   do: ", "       ")).unwrap();
        }
        for c in &s.rollback {
            writeln!(out, "   undo ({}):", c.lang.name()).unwrap();
            for l in c.text.lines() {
                writeln!(out, "     {}", line(l)).unwrap();
            }
        }
        if let Some(r) = &s.rollback_note {
            writeln!(out, "{}", wrap::paragraph(&line(r), WIDTH, "   undo: ", "         ")).unwrap();
        }
    }
    out
}

fn markdown(plan: &Plan) -> String {
    use crate::markdown::{code, text as md};
    let mut out = String::new();
    let e = |s: &str| md(&line(s));
    writeln!(out, "# Change plan for {}\n", code(&line(&plan.host), false)).unwrap();
    writeln!(
        out,
        "{}. spindle runs nothing: review each step, then run it yourself, in order.",
        summary(plan)
    )
    .unwrap();
    let mut phase = None;
    for (n, s) in numbered(plan) {
        if phase != Some(s.phase) {
            phase = Some(s.phase);
            writeln!(out, "\n## {}", s.phase.title()).unwrap();
        }
        let mark = if s.destructive { " — ⚠️ **DESTRUCTIVE**" } else { "" };
        writeln!(out, "\n### {n}. {}{mark}\n", e(&s.title)).unwrap();
        if !s.addresses.is_empty() {
            let list: Vec<String> = s
                .addresses
                .iter()
                .map(|a| format!("{} on {}", code(&line(&a.code), false), code(&line(&a.entity), false)))
                .collect();
            writeln!(out, "**Fixes:** {}\n", list.join("; ")).unwrap();
        }
        writeln!(out, "{}\n", e(&s.why)).unwrap();
        for p in &s.preconditions {
            writeln!(out, "- **Before:** {}", e(p)).unwrap();
        }
        if !s.preconditions.is_empty() {
            out.push('\n');
        }
        if let Some(g) = &s.gain {
            writeln!(
                out,
                "**Expected gain:** {}. Assumes {} Source: [{}]({})\n",
                e(&g.line()),
                e(&g.assumptions),
                e(&g.evidence),
                g.url.replace(')', "%29").replace('(', "%28")
            )
            .unwrap();
        } else if !s.addresses.is_empty() {
            writeln!(out, "**Expected gain:** {NO_ESTIMATE}.\n").unwrap();
        }
        for c in &s.commands {
            fenced(&mut out, c);
        }
        if let Some(i) = &s.instructions {
            let mut buf = vec![];
            if crate::markdown::fix(&mut buf, i).is_ok() {
                out.push_str(&String::from_utf8_lossy(&buf));
                out.push('\n');
            }
        }
        if !s.rollback.is_empty() || s.rollback_note.is_some() {
            writeln!(out, "**Undo:** {}\n", s.rollback_note.as_deref().map(e).unwrap_or_default()).unwrap();
            for c in &s.rollback {
                fenced(&mut out, c);
            }
        }
    }
    out
}

fn fenced(out: &mut String, c: &Command) {
    let mut buf = vec![];
    if crate::markdown::code_block(&mut buf, c.lang.fence(), &c.text, "").is_ok() {
        out.push_str(&String::from_utf8_lossy(&buf));
        out.push('\n');
    }
}

/// Untrusted text as comment lines: each line escaped (so nothing in it ends the comment or
/// hides from a reviewer), prefixed with `prefix`.
fn comment(out: &mut String, prefix: &str, text: &str) {
    for l in text.lines() {
        let l = line(l);
        writeln!(out, "{prefix}{}", l.trim_end()).unwrap();
    }
}

fn step_header(out: &mut String, prefix: &str, n: usize, s: &Step) {
    writeln!(out, "\n{prefix}--- Step {n}: {}", line(&s.title)).unwrap();
    if !s.addresses.is_empty() {
        writeln!(out, "{prefix}Fixes: {}", line(&codes(s))).unwrap();
    }
    // One line each: a newline inside them can only come from a name, and is shown escaped.
    writeln!(out, "{prefix}Why: {}", line(&s.why)).unwrap();
    for p in &s.preconditions {
        writeln!(out, "{prefix}Before: {}", line(p)).unwrap();
    }
    if let Some(g) = &s.gain {
        writeln!(out, "{prefix}Gain: {} ({})", line(&g.line()), line(&g.url)).unwrap();
    }
    if let Some(i) = &s.instructions {
        comment(out, prefix, i);
    }
    if let Some(r) = &s.rollback_note {
        writeln!(out, "{prefix}Undo: {}", line(r)).unwrap();
    }
    for c in &s.rollback {
        writeln!(out, "{prefix}Undo ({}):", c.lang.name()).unwrap();
        comment(out, &format!("{prefix}  "), &c.text);
    }
}

/// How one script language writes the steps: its comment marker, the commands it runs as they
/// are, how it asks before a destructive step, and how it runs T-SQL.
struct Shell<'a> {
    comment: &'a str,
    native: Lang,
    confirm: &'a dyn Fn(&str) -> String,
    tsql: &'a dyn Fn(&str) -> String,
}

/// Every step as `shell` writes it: phases as headings, each step's header as comments, then
/// its commands; those in another language (PowerShell in a shell script) as comments.
fn steps(out: &mut String, plan: &Plan, shell: &Shell<'_>) {
    let c = shell.comment;
    let mut phase = None;
    for (n, s) in numbered(plan) {
        if phase != Some(s.phase) {
            phase = Some(s.phase);
            writeln!(out, "\n{c}==== {} ====", s.phase.title()).unwrap();
        }
        step_header(out, c, n, s);
        if let Some(what) = asks(n, s)
            && shell.native != Lang::Tsql
        {
            writeln!(out, "{}", (shell.confirm)(&what)).unwrap();
        }
        for cmd in &s.commands {
            if cmd.lang == Lang::Tsql {
                out.push_str(&(shell.tsql)(&cmd.text));
            } else if cmd.lang == shell.native {
                out.push_str(&cmd.text);
            } else {
                comment(out, &format!("{c}({}, not run here) ", cmd.lang.name()), &cmd.text);
            }
            if !out.ends_with('\n') {
                out.push('\n');
            }
        }
    }
}

/// What a script asks before running step `n`, when it asks: before every step that deletes
/// data, and before every step of an outage (databases offline, a copy of a whole volume, a
/// service stopped or restarted), which a script must never start unasked.
fn asks(n: usize, s: &Step) -> Option<String> {
    if s.commands.is_empty() {
        return None;
    }
    let title = line(&s.title);
    if s.destructive {
        Some(format!("Step {n} deletes data: {title}"))
    } else if matches!(s.phase, Phase::Offline | Phase::Restart) {
        Some(format!("Step {n} is part of an outage: {title}"))
    } else {
        None
    }
}

fn uses_staging(plan: &Plan) -> bool {
    plan.steps
        .iter()
        .flat_map(|s| &s.commands)
        .any(|c| c.text.contains("$StagingPath") || c.text.contains("$STAGING"))
}

/// The byte order mark the PowerShell script starts with. Windows PowerShell 5.1 reads a script
/// without one as Windows-1252, in which the UTF-8 bytes of `ё`, `ђ` or `т` hold 0x91, 0x92 and
/// 0x82, quote marks to PowerShell: a name holding them would end its single-quoted string.
pub const PS1_BOM: char = '\u{feff}';

/// How the PowerShell script runs T-SQL: with sqlcmd's scripting variables and commands off,
/// so that `$(calc)` in a name stays text. Invoke-Sqlcmd (SQL Server 2008 and later tools) on
/// current Windows; on Windows Server 2008 R2 and older, whose PowerShell 2.0 may have no
/// Invoke-Sqlcmd, sqlcmd.exe (SQL Server 2005 and later) reading the batch from a UTF-16 file.
fn ps_sql_function(old_windows: bool) -> &'static str {
    if old_windows {
        "function Invoke-PlanSql([string] $Query) {\n    $file = [System.IO.Path]::GetTempFileName()\n    try {\n        [System.IO.File]::WriteAllText($file, $Query, [System.Text.Encoding]::Unicode)\n        sqlcmd -S $SqlInstance -E -b -x -I -i $file\n        if ($LASTEXITCODE -ne 0) { throw \"sqlcmd failed with exit code $LASTEXITCODE\" }\n    } finally {\n        Remove-Item -LiteralPath $file -Force\n    }\n}\n"
    } else {
        "function Invoke-PlanSql([string] $Query) {\n    Invoke-Sqlcmd -ServerInstance $SqlInstance -Query $Query -QueryTimeout 0 -DisableVariables -DisableCommands -ErrorAction Stop\n}\n"
    }
}

fn ps1(plan: &Plan, version: &str) -> String {
    let mut out = String::new();
    out.push(PS1_BOM);
    writeln!(out, "# spindle {version}: change plan for {}: {}.", line(&plan.host), summary(plan)).unwrap();
    out.push_str(
        "# Review every step before running this script, elevated, on that host. It stops at the first\n\
         # error and asks before every step of an outage and every destructive step. Manual steps are\n\
         # comments only. It runs on Windows PowerShell 2.0 and later, and checks elevation itself.\n\
         [CmdletBinding()]\nparam(\n    # The SQL Server instance, as sqlcmd -S takes it.\n    [Parameter(Mandatory = $true)] [string] $SqlInstance",
    );
    if uses_staging(plan) {
        out.push_str(",\n    # A folder on another volume with room for every volume rebuilt below.\n    [Parameter(Mandatory = $true)] [string] $StagingPath");
    }
    out.push_str(
        "\n)\nSet-StrictMode -Version Latest\n$ErrorActionPreference = 'Stop'\n\
         $principal = New-Object System.Security.Principal.WindowsPrincipal([System.Security.Principal.WindowsIdentity]::GetCurrent())\n\
         if (-not $principal.IsInRole([System.Security.Principal.WindowsBuiltInRole]::Administrator)) { throw 'Run this script elevated (as Administrator).' }\n\n",
    );
    out.push_str(ps_sql_function(plan.old_windows));
    out.push_str(
        "\nfunction Confirm-Step([string] $What) {\n    $answer = Read-Host \"$What - type YES to go on\"\n    if ($answer -cne 'YES') { throw \"Stopped before: $What\" }\n}\n",
    );
    steps(
        &mut out,
        plan,
        &Shell {
            comment: "# ",
            native: Lang::PowerShell,
            confirm: &|what| format!("Confirm-Step {}", ps_string(what)),
            tsql: &|sql| format!("Invoke-PlanSql -Query {}", ps_string(sql)),
        },
    );
    out
}

fn sh(plan: &Plan, version: &str) -> String {
    let mut out = String::new();
    writeln!(out, "#!/bin/sh\n# spindle {version}: change plan for {}: {}.", line(&plan.host), summary(plan))
        .unwrap();
    out.push_str(
        "# Review every step before running this script as root on that host. It stops at the first\n\
         # error and asks before every step of an outage and every destructive step. Manual steps\n\
         # are comments only. sqlcmd runs with -x: $(...) in a name is not a scripting variable.\n\
         # Names from the server are single-quoted so that nothing in them ($(...), `...`) expands:\n\
         # shellcheck disable=SC2016\n\
         set -eu\n\
         : \"${SQL_SERVER:?set SQL_SERVER to the instance, as sqlcmd -S takes it}\"\n",
    );
    if uses_staging(plan) {
        out.push_str(": \"${STAGING:?set STAGING to a folder on another volume with room for every volume rebuilt below}\"\n");
    }
    out.push_str(
        "SQLCMD=${SQLCMD:-sqlcmd}\n\n\
         plan_sql() {\n    \"$SQLCMD\" -S \"$SQL_SERVER\" -b -x -Q \"$1\"\n}\n\n\
         confirm_step() {\n    printf '%s - type YES to go on: ' \"$1\"\n    read -r answer\n    [ \"$answer\" = YES ] || { printf 'stopped before: %s\\n' \"$1\" >&2; exit 1; }\n}\n",
    );
    steps(
        &mut out,
        plan,
        &Shell {
            comment: "# ",
            native: Lang::Shell,
            confirm: &|what| format!("confirm_step {}", sh_word(what)),
            tsql: &|sql| format!("plan_sql {}", sh_word(sql)),
        },
    );
    out
}

/// The first step the T-SQL plan cannot run: the first step of the first unit (see
/// [`Step::unit`]) with a command in another language, or with `$(` in its T-SQL (which sqlcmd,
/// reading a file, would take for a scripting variable). Whatever comes before it runs alone;
/// nothing from it on does, so the T-SQL plan never starts an outage it cannot finish.
fn sql_stop(plan: &Plan) -> Option<usize> {
    let cannot = |s: &Step| s.commands.iter().any(|c| c.lang != Lang::Tsql || c.text.contains("$("));
    let unit = plan.steps.iter().find(|s| cannot(s))?.unit;
    plan.steps.iter().position(|s| s.unit == unit)
}

fn sql(plan: &Plan, version: &str) -> String {
    let mut out = String::new();
    writeln!(out, "-- spindle {version}: change plan for {}: {}.", line(&plan.host), summary(plan)).unwrap();
    let other = if plan.os == "linux" { "sh" } else { "ps1" };
    out.push_str(
        "-- The T-SQL steps, for sqlcmd -b. It runs the steps up to the first one that needs PowerShell or\n\
         -- shell (a copy, a partition, a format, a service restart), with everything of its outage, and\n\
         -- stops there with an error: run the rest from the ",
    );
    writeln!(
        out,
        "{other} plan (spindle plan --format {other}).\n\
         -- A dollar sign before an opening parenthesis is written $\\x28 in comments: sqlcmd would\n\
         -- take it for a scripting variable even there.\n\
         :on error exit"
    )
    .unwrap();
    let stop = sql_stop(plan);
    let run: Vec<Step> = plan.steps.iter().take(stop.unwrap_or(plan.steps.len())).cloned().collect();
    let head = Plan { steps: run, ..plan.clone() };
    steps(
        &mut out,
        &head,
        &Shell {
            comment: "-- ",
            native: Lang::Tsql,
            confirm: &|_| String::new(),
            tsql: &|sql| format!("{}\nGO", sql.trim_end_matches('\n')),
        },
    );
    if let Some(stop) = stop {
        let n = stop + 1;
        writeln!(
            out,
            "\n-- Steps {n} to {} need the {other} plan: this script stops here.\n\
             RAISERROR (N'Stopped before step {n}: it needs PowerShell or shell, or a name sqlcmd would read as a variable. Run steps {n} and after from the {other} plan (spindle plan --format {other}).', 16, 1);\nGO",
            plan.steps.len()
        )
        .unwrap();
        // The rest, for the reader: every line a comment.
        let mut rest = String::new();
        for (i, s) in plan.steps.iter().enumerate().skip(stop) {
            step_header(&mut rest, "-- ", i + 1, s);
            for c in &s.commands {
                writeln!(rest, "-- ({}, not run here):", c.lang.name()).unwrap();
                comment(&mut rest, "--   ", &c.text);
            }
        }
        out.push_str(&rest);
    }
    out.replace("$(", "$\\x28")
}
