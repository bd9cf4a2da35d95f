//! PLC005's fixes: the T-SQL that gives this tempdb the right number of data files, equal sizes
//! and equal growth, naming its own files, folder and sizes.

use std::collections::BTreeMap;

use spindle_core::facts::{DbFile, Growth};
use spindle_core::view::Located;

use crate::commands::{file_folder, tsql_name, tsql_string};

/// Whole MiB, rounded up, for `SIZE =` and `FILEGROWTH =` (`64MB`).
fn mb(bytes: u64) -> String {
    format!("{}MB", bytes.div_ceil(1 << 20))
}

/// A growth setting as `FILEGROWTH =` takes it.
fn filegrowth(g: Growth) -> String {
    match g {
        Growth::Disabled => "0".to_string(),
        Growth::IncrementBytes(b) => mb(b),
        Growth::Percent(p) => format!("{p}%"),
    }
}

/// Add files up to `target`, or empty and remove the last ones down to it.
pub(crate) fn count(database: &str, data: &[&Located<DbFile>], target: u32) -> String {
    let db = tsql_name(database);
    let n = data.len();
    let target = target as usize;
    if target < n {
        let mut sql = format!("USE {db};\n");
        for f in &data[target..] {
            sql.push_str(&format!(
                "DBCC SHRINKFILE ({}, EMPTYFILE);\nALTER DATABASE {db} REMOVE FILE {};\n",
                tsql_string(&f.logical_name),
                tsql_name(&f.logical_name)
            ));
        }
        return format!("Empty and remove the surplus data files:\n\n```sql\n{sql}```");
    }
    let largest = data.iter().filter_map(|f| f.size_bytes).max();
    let size = largest.map_or_else(|| "<size of the others>".to_string(), mb);
    let growth =
        data.first().and_then(|f| f.growth).map_or_else(|| "<growth of the others>".to_string(), filegrowth);
    let folder = data.first().and_then(|f| file_folder(f)).unwrap_or("<tempdb folder>\\");
    let taken: Vec<String> = data.iter().map(|f| f.logical_name.to_ascii_lowercase()).collect();
    let mut sql = String::new();
    let mut k = n + 1;
    for _ in n..target {
        while taken.contains(&format!("temp{k}")) {
            k += 1;
        }
        sql.push_str(&format!(
            "ALTER DATABASE {db} ADD FILE (NAME = {}, FILENAME = {}, SIZE = {size}, FILEGROWTH = {growth});\n",
            tsql_string(&format!("temp{k}")),
            tsql_string(&format!("{folder}tempdb_mssql_{k}.ndf")),
        ));
        k += 1;
    }
    format!(
        "Add data files of the same size and growth as the others, in the same folder ({folder}):\n\n```sql\n{sql}```"
    )
}

/// Grow every smaller file to the largest's `max` bytes (a larger SIZE applies at once).
pub(super) fn sizes(database: &str, data: &[&Located<DbFile>], max: u64) -> String {
    let db = tsql_name(database);
    let sql: String = data
        .iter()
        .filter(|f| f.size_bytes.is_some_and(|s| s < max))
        .map(|f| {
            format!(
                "ALTER DATABASE {db} MODIFY FILE (NAME = {}, SIZE = {});\n",
                tsql_string(&f.logical_name),
                mb(max)
            )
        })
        .collect();
    format!(
        "Give every data file the size of the largest (a larger SIZE applies at once; a smaller one becomes \
         the startup size, applied at the next restart):\n\n```sql\n{sql}```\n\nThe current sizes, which may \
         differ from the startup sizes in sys.master_files: `SELECT name, size * 8 / 1024 AS size_mb FROM \
         {}.sys.database_files WHERE type_desc = 'ROWS';`",
        db
    )
}

/// Give every file the growth most of them have (the first file's when tied).
pub(super) fn growths(database: &str, data: &[&Located<DbFile>]) -> String {
    let db = tsql_name(database);
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (i, f) in data.iter().enumerate() {
        if let Some(g) = f.growth {
            let e = counts.entry(filegrowth(g)).or_insert((0, i));
            e.0 += 1;
        }
    }
    let Some(common) =
        counts.iter().max_by_key(|(_, (n, first))| (*n, std::cmp::Reverse(*first))).map(|(g, _)| g.clone())
    else {
        return String::new();
    };
    let sql: String = data
        .iter()
        .filter(|f| f.growth.is_some_and(|g| filegrowth(g) != common))
        .map(|f| {
            format!(
                "ALTER DATABASE {db} MODIFY FILE (NAME = {}, FILEGROWTH = {common});\n",
                tsql_string(&f.logical_name)
            )
        })
        .collect();
    format!(
        "Give every data file the same growth ({common}, the setting most of them have), so they stay equal:\n\n\
         ```sql\n{sql}```\n\nOn SQL Server 2014 and older, trace flag 1117 also makes the files of a filegroup \
         grow together."
    )
}
