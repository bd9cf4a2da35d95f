//! What no tool does safely: each finding left is a step in words, its rule's (or plugin's)
//! fix as the instructions, and what its [`Manual`] remedy adds. A fix that takes effect at a
//! restart (a privilege granted) stays in that phase.

use spindle_core::plan::{Manual, Phase, Remedy, Step};

use super::Builder;

pub(super) fn steps(b: &mut Builder<'_>) {
    let left: Vec<usize> = (0..b.findings.len()).filter(|&i| !b.is_used(i)).collect();
    for i in left {
        let f = b.findings[i];
        let builtin = !f.code.contains('/');
        let manual = b.remedies(i).iter().find_map(|r| match r {
            Remedy::Manual(m) => Some(*m),
            _ => None,
        });
        let phase = if manual == Some(Manual::AtRestart) { Phase::Restart } else { Phase::Manual };
        let who = match manual {
            Some(Manual::AskStorageTeam) => {
                " Ask the storage team for the stripe unit (chunk) of the RAID set or LUN."
            }
            Some(Manual::MeasureAgain) => " Measure again after the changes above: they may be the cause.",
            Some(Manual::AskPlatformTeam) => {
                " Ask the platform team to extend the volume, or move files off it."
            }
            _ if !builtin => " The rule comes from a plugin: its fix is shown as it wrote it.",
            Some(Manual::AtRestart) | None => "",
        };
        let mut step =
            Step::new(phase, format!("{}: {}", f.code, f.entity.label), format!("{}.{who}", f.message));
        step.instructions = Some(f.fix.clone());
        b.add(step, &[i], &[]);
    }
}
