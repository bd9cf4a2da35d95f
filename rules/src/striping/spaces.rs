//! Shared by the STR rules: Storage Spaces resiliency and column arithmetic, and the workload a
//! rule judges against.

use spindle_core::declare::Workload;
use spindle_core::facts::{StoragePool, VirtualDisk};
use spindle_core::view::HostView;

use crate::commands::ps_string;

/// `ResiliencySettingName` of a virtual disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resiliency {
    Simple,
    Mirror,
    Parity,
}

impl Resiliency {
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "simple" => Some(Resiliency::Simple),
            "mirror" => Some(Resiliency::Mirror),
            "parity" => Some(Resiliency::Parity),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Resiliency::Simple => "Simple",
            Resiliency::Mirror => "Mirror",
            Resiliency::Parity => "Parity",
        }
    }
}

/// The most columns a virtual disk can have over `disks` physical disks: every disk for a
/// Simple or Parity space (a parity space rotates its parity strip over all its columns), the
/// disks divided by the data copies for a Mirror space (each column is `copies` disks). At least
/// one.
pub(crate) fn max_columns(r: Resiliency, disks: u32, mirror_copies: u32) -> u32 {
    match r {
        Resiliency::Simple | Resiliency::Parity => disks,
        Resiliency::Mirror => disks / mirror_copies.max(1),
    }
    .max(1)
}

/// Disks one stripe of the virtual disk touches: its columns, times the copies for a mirror.
pub(crate) fn disks_per_stripe(r: Resiliency, columns: u32, mirror_copies: u32) -> u32 {
    match r {
        Resiliency::Simple | Resiliency::Parity => columns,
        Resiliency::Mirror => columns * mirror_copies.max(1),
    }
}

/// The workload to judge by: the one a pack declares (with the pack's path), else the rule's
/// `workload` parameter (`assumed`). The second value says where it came from, for messages.
pub(crate) fn workload(view: &HostView, assumed: Workload) -> (Workload, String) {
    if let Some((w, pack)) = &view.declared.workload {
        return (*w, format!("declared in {pack}"));
    }
    (assumed, "the rule's `workload` parameter; no pack declares one".to_string())
}

/// `an OLTP workload`, `a data-warehouse workload`.
pub(crate) fn workload_phrase(w: Workload) -> &'static str {
    match w {
        Workload::Oltp => "an OLTP workload",
        Workload::DataWarehouse => "a data-warehouse workload",
    }
}

/// The interleave New-VirtualDisk should be given for the workload a pack declares (64KB unless
/// a data warehouse is declared).
pub(crate) fn interleave_arg(view: &HostView) -> &'static str {
    match view.declared.workload {
        Some((Workload::DataWarehouse, _)) => "256KB",
        _ => "64KB",
    }
}

pub(crate) fn pool_name(p: &StoragePool) -> &str {
    p.name.as_deref().unwrap_or(&p.id)
}

pub(crate) fn vd_name(vd: &VirtualDisk) -> &str {
    vd.name.as_deref().unwrap_or(&vd.id)
}

/// The PowerShell that creates a replacement virtual disk.
pub(crate) fn new_virtual_disk(
    pool: &str,
    name: &str,
    r: Resiliency,
    columns: u32,
    mirror_copies: u32,
    interleave: &str,
) -> String {
    let copies = match r {
        Resiliency::Mirror => format!(" -NumberOfDataCopies {mirror_copies}"),
        _ => String::new(),
    };
    format!(
        "New-VirtualDisk -StoragePoolFriendlyName {} -FriendlyName {} \
         -ResiliencySettingName {}{copies} -NumberOfColumns {columns} -Interleave {interleave} -UseMaximumSize",
        ps_string(pool),
        ps_string(name),
        r.as_str()
    )
}

/// What the STR rules' tests share: running one rule with declarations and parameters.
#[cfg(test)]
pub(super) mod testing {
    use spindle_core::declare::Workload;
    use spindle_core::params::Params;
    use spindle_core::view::HostView;

    /// Runs one rule over a snapshot text with pack declarations and parameter overrides.
    pub(in crate::striping) fn run_rule(
        rule: &'static spindle_core::rule::BuiltinRule,
        json: &str,
        declared: spindle_core::declare::Declarations,
        overrides: &[(&str, spindle_core::params::ParamValue)],
    ) -> spindle_core::engine::HostReport {
        use spindle_core::engine::{ActiveRule, check_host};
        let doc = spindle_core::load::parse_snapshot("t.json", json.to_string()).unwrap();
        let view = HostView::build(vec![doc], declared);
        let mut params = Params::defaults(rule.meta.params);
        for (name, value) in overrides {
            params.set(name, value.clone());
        }
        let active = [ActiveRule { rule, code: rule.meta.code.into(), severity: rule.meta.severity, params }];
        check_host(&active, &view, &[], spindle_core::date::Date::parse("2026-01-01").unwrap())
    }

    /// Declarations with only a workload, as the `oltp` and `data-warehouse` packs make.
    pub(in crate::striping) fn declared_workload(
        w: Workload,
        pack: &str,
    ) -> spindle_core::declare::Declarations {
        spindle_core::declare::Declarations { workload: Some((w, pack.to_string())), stripes: vec![] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_resiliency() {
        assert_eq!(max_columns(Resiliency::Simple, 16, 2), 16);
        assert_eq!(max_columns(Resiliency::Parity, 16, 2), 16);
        assert_eq!(max_columns(Resiliency::Mirror, 16, 2), 8);
        assert_eq!(max_columns(Resiliency::Mirror, 16, 3), 5);
        assert_eq!(max_columns(Resiliency::Mirror, 5, 2), 2);
        assert_eq!(max_columns(Resiliency::Mirror, 2, 2), 1);
        assert_eq!(max_columns(Resiliency::Simple, 0, 2), 1);
        assert_eq!(disks_per_stripe(Resiliency::Mirror, 4, 2), 8);
        assert_eq!(disks_per_stripe(Resiliency::Simple, 8, 2), 8);
    }

    #[test]
    fn parses_resiliency() {
        assert_eq!(Resiliency::parse("Simple"), Some(Resiliency::Simple));
        assert_eq!(Resiliency::parse(" mirror"), Some(Resiliency::Mirror));
        assert_eq!(Resiliency::parse("PARITY"), Some(Resiliency::Parity));
        assert_eq!(Resiliency::parse("raid5"), None);
    }
}
