//! What no tool does safely: each finding left is a step in words, its rule's (or plugin's)
//! fix as the instructions. A builtin rule's fix that takes effect at a restart (GRW003's
//! privilege) stays in that phase.

use spindle_core::plan::{Phase, Step};

use super::Builder;

pub(super) fn steps(b: &mut Builder<'_>) {
    let left: Vec<usize> = (0..b.findings.len()).filter(|&i| !b.is_used(i)).collect();
    for i in left {
        let f = b.findings[i];
        let builtin = !f.code.contains('/');
        let phase = if builtin && f.code == "GRW003" { Phase::Restart } else { Phase::Manual };
        let who = match f.code.as_str() {
            "STR004" | "ALN002" | "ALN003" => {
                " Ask the storage team for the stripe unit (chunk) of the RAID set or LUN."
            }
            "LAT001" | "LAT002" | "LAT003" => {
                " Measure again after the changes above: they may be the cause."
            }
            "CAP001" => " Ask the platform team to extend the volume, or move files off it.",
            _ if !builtin => " The rule comes from a plugin: its fix is shown as it wrote it.",
            _ => "",
        };
        let mut step =
            Step::new(phase, format!("{}: {}", f.code, f.entity.label), format!("{}.{who}", f.message));
        step.instructions = Some(f.fix.clone());
        b.add(step, &[i], &[]);
    }
}
