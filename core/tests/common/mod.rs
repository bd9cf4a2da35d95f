//! What the pack tests share: two test rules with parameters, their catalogue, and packs held
//! in memory.

#![allow(dead_code)] // each test file uses its own part

use std::collections::HashMap;

use spindle_core::declare::Workload;
use spindle_core::declare_rule;
use spindle_core::pack::{PackLoader, SourceText};
use spindle_core::rule::{Ctx, RuleMeta};

fn nothing<P>(_: &mut Ctx<'_, P>) {}

declare_rule! {
    /// ## What it checks
    /// Test.
    static OFFSET = {
        code: "ALN001",
        name: "partition-offset-alignment",
        severity: Error,
        summary: "test",
        needs: [],
        params: OffsetParams { alignment_bytes: { kind: Bytes, default: Num(65536.0), doc: "boundary" } },
        check: nothing,
    }
}

declare_rule! {
    /// ## What it checks
    /// Test.
    static INTERLEAVE = {
        code: "STR002",
        name: "interleave-for-workload",
        severity: Warning,
        summary: "test",
        needs: [],
        params: InterleaveParams { workload: { kind: Choice(Workload), default: Text("oltp"), doc: "workload" } },
        check: nothing,
    }
}

pub fn catalogue() -> Vec<(&'static str, &'static RuleMeta)> {
    vec![("ALN001", &OFFSET.meta), ("STR002", &INTERLEAVE.meta)]
}

pub struct Mem(pub HashMap<&'static str, &'static str>);

impl PackLoader for Mem {
    fn load(&self, reference: &str, _from: Option<&str>) -> Result<SourceText, String> {
        self.0
            .get(reference)
            .map(|t| SourceText { path: reference.to_string(), text: t.to_string() })
            .ok_or_else(|| format!("no pack `{reference}`"))
    }
}

pub fn mem(files: &[(&'static str, &'static str)]) -> Mem {
    Mem(files.iter().copied().collect())
}
