//! Reading the rows on a live Windows host through the `wmi` crate.
//!
//! Every class is read with `SELECT *`, each instance's properties listed and read one by one,
//! then handed to the row struct as a map: a property a class lacks on this Windows version
//! (`UniqueId` before Windows 10, `AllocationUnitSize`) is then simply absent, where naming it
//! in the query (or the `wmi` crate's field-by-field deserialisation) would fail the whole
//! class.

use serde::de::value::MapDeserializer;
use serde::de::{DeserializeOwned, IntoDeserializer};
use wmi::{Variant, WMIConnection, WMIError};

use super::WindowsError;
use super::rows::*;

const CIMV2: &str = "ROOT\\CIMV2";
const STORAGE: &str = "ROOT\\Microsoft\\Windows\\Storage";

pub(super) fn collect() -> Result<WmiRows, WindowsError> {
    let cimv2 = WMIConnection::with_namespace_path(CIMV2)
        .map_err(|e| WindowsError::Connect { namespace: CIMV2.to_string(), message: describe(&e) })?;
    let collected_at = Some(crate::now_rfc3339());
    let mut rows = WmiRows {
        computer_name: std::env::var("COMPUTERNAME").ok(),
        collected_at,
        computer_system: query(&cimv2, "Win32_ComputerSystem"),
        operating_system: query(&cimv2, "Win32_OperatingSystem"),
        system_enclosure: query(&cimv2, "Win32_SystemEnclosure"),
        ..Default::default()
    };
    match WMIConnection::with_namespace_path(STORAGE) {
        Ok(st) => {
            rows.disks = query(&st, "MSFT_Disk");
            rows.partitions = query(&st, "MSFT_Partition");
            rows.volumes = query(&st, "MSFT_Volume");
            rows.virtual_disks = query(&st, "MSFT_VirtualDisk");
            rows.storage_pools = query(&st, "MSFT_StoragePool");
            rows.physical_disks = query(&st, "MSFT_PhysicalDisk");
            rows.partition_to_volume = query(&st, "MSFT_PartitionToVolume");
            rows.virtual_disk_to_disk = query(&st, "MSFT_VirtualDiskToDisk");
            rows.pool_to_virtual_disk = query(&st, "MSFT_StoragePoolToVirtualDisk");
            rows.pool_to_physical_disk = query(&st, "MSFT_StoragePoolToPhysicalDisk");
        }
        Err(e) => {
            // Before Windows 8 / Server 2012 the namespace does not exist.
            rows.storage_failed(&format!("cannot open {STORAGE}: {}", describe(&e)));
        }
    }
    rows.distrust_empty_storage();
    if !rows.disks.is_ok() {
        rows.win32_disk_drives = query(&cimv2, "Win32_DiskDrive");
        rows.win32_partitions = query(&cimv2, "Win32_DiskPartition");
        rows.win32_logical_disk_to_partition = query(&cimv2, "Win32_LogicalDiskToPartition");
    }
    rows.win32_volumes = query(&cimv2, "Win32_Volume");
    rows.win32_mount_points = query(&cimv2, "Win32_MountPoint");
    if rows.win32_volumes.rows().is_empty() {
        rows.win32_logical_disks = query(&cimv2, "Win32_LogicalDisk");
    }
    Ok(rows)
}

/// A property value handed to serde as a deserializer of its own.
struct Value(Variant);

impl IntoDeserializer<'_, WMIError> for Value {
    type Deserializer = Variant;

    fn into_deserializer(self) -> Variant {
        self.0
    }
}

/// One instance's properties, handed to a row struct with their names matched to its fields
/// without regard to case, as WMI matches them: Wine names `Win32_LogicalDisk.DeviceID`
/// `DeviceId`, and a case-sensitive match would lose the drive letter.
struct Properties(Vec<(String, Value)>);

impl<'de> serde::Deserializer<'de> for Properties {
    type Error = WMIError;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, WMIError> {
        visitor.visit_map(MapDeserializer::new(self.0.into_iter()))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WMIError> {
        let named = self.0.into_iter().map(|(name, value)| {
            let field = fields.iter().find(|f| f.eq_ignore_ascii_case(&name));
            (field.map_or(name, |f| (*f).to_string()), value)
        });
        visitor.visit_map(MapDeserializer::new(named))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// All instances of `class`, each read property by property and then as `T`. A property that
/// cannot be converted (an embedded object, a VARIANT type the `wmi` crate does not know) is
/// left out of its row, so it costs only itself; the row structs never need one.
fn query<T: DeserializeOwned>(con: &WMIConnection, class: &str) -> Rows<T> {
    let objects = match con.exec_query(format!("SELECT * FROM {class}")) {
        Ok(it) => it,
        Err(e) => return Rows::Failed(describe(&e)),
    };
    let mut out = vec![];
    for object in objects {
        let object = match object {
            Ok(o) => o,
            Err(e) => return Rows::Failed(describe(&e)),
        };
        let names = match object.list_properties() {
            Ok(n) => n,
            Err(e) => return Rows::Failed(describe(&e)),
        };
        let props = names.into_iter().filter_map(|name| match object.get_property(&name) {
            Ok(Variant::Object(_) | Variant::Unknown(_)) | Err(_) => None,
            Ok(v) => Some((name, Value(v))),
        });
        match T::deserialize(Properties(props.collect())) {
            Ok(row) => out.push(row),
            Err(e) => return Rows::Failed(format!("reading a row: {e}")),
        }
    }
    Rows::Ok(out)
}

/// The WMI error with the name of the common HRESULTs (MicrosoftDocs/win32
/// `desktop-src/WmiSdk/wmi-error-constants.md`).
fn describe(e: &WMIError) -> String {
    if let WMIError::HResultError { hres } = e {
        let name = match *hres as u32 {
            0x8004_1002 => "WBEM_E_NOT_FOUND",
            0x8004_1003 => "WBEM_E_ACCESS_DENIED",
            0x8004_100E => "WBEM_E_INVALID_NAMESPACE",
            0x8004_1010 => "WBEM_E_INVALID_CLASS",
            0x8004_1013 => "WBEM_E_PROVIDER_LOAD_FAILURE",
            0x8004_1017 => "WBEM_E_INVALID_QUERY",
            0x8007_0005 => "E_ACCESSDENIED",
            0x8000_4005 => "E_FAIL",
            _ => return e.to_string(),
        };
        return format!("{e} ({name})");
    }
    e.to_string()
}
