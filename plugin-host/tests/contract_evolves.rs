//! A plugin built against contract 0.2.0 runs on a host that implements a 0.2.1 with one more
//! function (`contract-0.2.1/plugin.wit`): the contract can grow by minor versions without
//! rebuilding plugins. wasmtime's linker matches the plugin's `facts@0.2.0` import to the host's
//! `facts@0.2.1` by semver; nothing defines unknown imports as traps, which would shadow that.

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

wasmtime::component::bindgen!({
    world: "plugin",
    path: "tests/contract-0.2.1",
});

use spindle::plugin::facts::{self, HostFacts, HostInfo, Partition};
use spindle::plugin::types::{self, EnabledRule};

struct Host021 {
    wasi: WasiCtx,
    table: ResourceTable,
    facts: HostFacts,
    asked_buckets: bool,
}

impl WasiView for Host021 {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl types::Host for Host021 {}

impl facts::Host for Host021 {
    fn get(&mut self) -> HostFacts {
        self.facts.clone()
    }

    fn file_read_latency_buckets(&mut self, _file_key: String) -> Option<Vec<u64>> {
        self.asked_buckets = true;
        None
    }
}

impl PluginImports for Host021 {
    fn log(&mut self, _level: LogLevel, _message: String) {}
}

/// A host with one partition 32,256 bytes into its disk: sector 63, what ALN001 reports.
fn sector_63() -> HostFacts {
    HostFacts {
        schema_version: 1,
        collected_at: None,
        host: HostInfo {
            name: "h".into(),
            os_family: None,
            os_version: None,
            cpu_count: None,
            memory_bytes: None,
            is_virtual: None,
            cloud_provider: None,
        },
        collectors: vec![],
        disks: None,
        partitions: Some(vec![Partition {
            key: "h/disk:d1/partition:1".into(),
            label: "partition 1 of disk d1".into(),
            id: "p1".into(),
            disk_id: "d1".into(),
            number: Some(1),
            offset_bytes: Some(32_256),
            size_bytes: None,
        }]),
        volumes: None,
        storage_pools: None,
        virtual_disks: None,
        raid_sets: None,
        sql_instances: None,
    }
}

#[test]
fn a_0_2_0_plugin_runs_on_a_0_2_1_host() {
    let parity = spindle_test_support::plugins::wasm("parity");
    let mut config = Config::new();
    config.wasm_component_model(true);
    let engine = Engine::new(&config).unwrap();
    let component = Component::from_file(&engine, parity).unwrap();

    let ty = component.component_type();
    let imports: Vec<String> = ty.imports(&engine).map(|(name, _)| name.to_string()).collect();
    assert!(imports.iter().any(|i| i == "spindle:plugin/facts@0.2.0"), "built against 0.2.0: {imports:?}");

    let mut linker = Linker::<Host021>::new(&engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
    Plugin::add_to_linker::<Host021, HasSelf<Host021>>(&mut linker, |h| h).unwrap();
    let pre = PluginPre::new(linker.instantiate_pre(&component).expect("0.2.0 links with 0.2.1")).unwrap();

    let host = Host021 {
        wasi: WasiCtx::builder().build(),
        table: ResourceTable::new(),
        facts: sector_63(),
        asked_buckets: false,
    };
    let mut store = Store::new(&engine, host);
    let plugin = pre.instantiate(&mut store).unwrap();
    let config = CheckConfig {
        rules: vec![EnabledRule { code: "ALN001".into(), params: vec![] }],
        workload: None,
        stripe_units: vec![],
        config_json: "{}".into(),
    };
    let out = plugin.call_check(&mut store, &config).unwrap().expect("the check succeeds");
    let found: Vec<(&str, &str, Option<&str>)> =
        out.findings.iter().map(|f| (f.code.as_str(), f.entity.as_str(), f.field.as_deref())).collect();
    assert_eq!(found, [("ALN001", "h/disk:d1/partition:1", Some("offset_bytes"))]);
    let q = out.findings[0].measured_quantity.as_ref().expect("a measured quantity");
    assert_eq!(q.value, 32_256.0);
    assert!(!store.data().asked_buckets, "a 0.2.0 plugin cannot call what 0.2.1 added");
}
