//! T-SQL text for the growth rules' fixes, with names quoted the way SQL Server parses them.

use crate::commands::{tsql_name, tsql_string};

/// `ALTER DATABASE [Sales] MODIFY FILE (NAME = N'Sales_Data', FILEGROWTH = 64MB);`
pub(crate) fn set_filegrowth(database: &str, logical_name: &str, growth_mib: u64) -> String {
    format!(
        "ALTER DATABASE {} MODIFY FILE (NAME = {}, FILEGROWTH = {growth_mib}MB);",
        tsql_name(database),
        tsql_string(logical_name)
    )
}

/// Bytes as whole MiB, rounded up (so a 64 MiB minimum never becomes 63MB).
pub(crate) fn mib_ceil(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_names() {
        assert_eq!(
            set_filegrowth("Sales]Q", "O'Brien_Data", 64),
            "ALTER DATABASE [Sales]]Q] MODIFY FILE (NAME = N'O''Brien_Data', FILEGROWTH = 64MB);"
        );
    }

    #[test]
    fn rounds_up_to_mib() {
        assert_eq!(mib_ceil(64 << 20), 64);
        assert_eq!(mib_ceil((64 << 20) + 1), 65);
        assert_eq!(mib_ceil(1), 1);
    }
}
