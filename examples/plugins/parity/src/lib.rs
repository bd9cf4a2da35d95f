//! Two builtin rules, unchanged, compiled through the plugin SDK: ALN001
//! (`partition-offset-alignment`) and FMT001 (`allocation-unit-size`). Run as a plugin over the
//! same facts, they must give exactly the findings the builtin rules give; spindle's tests
//! compare the two.

use spindle_plugin_sdk::{BuiltinRule, RulePack, export_pack};

pub struct Parity;

impl RulePack for Parity {
    const ID: &'static str = "parity";
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");

    fn rules() -> Vec<&'static BuiltinRule> {
        vec![
            &spindle_rules::alignment::PARTITION_OFFSET_ALIGNMENT,
            &spindle_rules::format::ALLOCATION_UNIT_SIZE,
        ]
    }
}

export_pack!(Parity);

#[cfg(test)]
mod tests {
    use super::Parity;

    #[test]
    fn pack_is_well_formed() {
        assert_eq!(spindle_plugin_sdk::testing::problems::<Parity>(), Vec::<String>::new());
        let codes: Vec<String> = spindle_plugin_sdk::rules::<Parity>().into_iter().map(|m| m.code).collect();
        assert_eq!(codes, ["ALN001", "FMT001"]);
    }
}
