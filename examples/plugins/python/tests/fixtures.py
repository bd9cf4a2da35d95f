"""Host facts for the tests, as spindle's host would hand them to `facts.get`: the snapshots of
the Rust acme pack's tests (examples/plugins/acme/src/tests.rs) and a few more, with the keys and
the file-to-volume join (`volume-key`) spindle works out from the volume ids and paths. The join
is written here by hand, so it must be the one spindle makes: the Rust pack, which makes it
again itself, checks that in test_parity.py."""

from wit_world.imports import facts as f
from wit_world.imports import types as t


def host_facts(name, volumes=None, databases=None, collectors=()):
    """One host with one instance `MSSQLSERVER` holding `databases` (None: no SQL facts)."""
    instances = None
    if databases is not None:
        instances = [
            f.SqlInstance(
                key=f"{name}/instance:MSSQLSERVER",
                label="MSSQLSERVER",
                name="MSSQLSERVER",
                version=None,
                product_level=None,
                edition=None,
                clustered=None,
                cpu_count=None,
                instant_file_initialization=None,
                service_account=None,
                databases=databases,
            )
        ]
    return f.HostFacts(
        schema_version=1,
        collected_at=None,
        host=f.HostInfo(
            name=name,
            os_family=None,
            os_version=None,
            cpu_count=None,
            memory_bytes=None,
            is_virtual=None,
            cloud_provider=None,
        ),
        collectors=[
            f.CollectorReport(
                name=c, version=None, not_collected=[f.NotCollected(fact=k, reason=r) for k, r in nc]
            )
            for c, nc in collectors
        ],
        disks=None,
        partitions=None,
        volumes=volumes,
        storage_pools=None,
        virtual_disks=None,
        raid_sets=None,
        sql_instances=instances,
    )


def volume(host, vid, mounts, volume_label):
    return f.Volume(
        key=f"{host}/volume:{vid}",
        label=mounts[0] if mounts else vid,
        id=vid,
        mount_points=mounts,
        volume_label=volume_label,
        filesystem=None,
        allocation_unit_bytes=None,
        size_bytes=1000,
        free_bytes=500,
        compressed=None,
        encrypted=None,
        os_volume=None,
        temp_disk=None,
        fs_stripe_unit_bytes=None,
        fs_stripe_width_bytes=None,
        mount_options=None,
        backed_by=None,
    )


def database(host, name, files, role=None):
    key = f"{host}/instance:MSSQLSERVER/database:{name}"
    return f.Database(
        key=key,
        label=name,
        name=name,
        id=None,
        role=role,
        recovery_model=None,
        state=None,
        files=[
            f.DbFile(
                key=f"{key}/file:{logical}",
                label=logical,
                file_id=None,
                file_type=ftype,
                logical_name=logical,
                physical_name=path,
                size_bytes=None,
                growth=None,
                max_size=None,
                volume_id=volume_id,
                volume_key=on and f"{host}/volume:{on}",
                volume_unknown=None,
                io=None,
            )
            for logical, ftype, path, volume_id, on in files
        ],
    )


ROWS, LOG = f.FileType.ROWS, f.FileType.LOG

# FOLDER_MOUNTS of the Rust tests: L:\ (labelled sqllog01) holds Sales' log; master is a system
# database by its name.
FOLDER_MOUNTS = host_facts(
    "sql-prd-01",
    volumes=[
        volume("sql-prd-01", "e", ["E:\\"], "Apps"),
        volume("sql-prd-01", "d1", ["E:\\SQLData01\\"], "SQLData01"),
        volume("sql-prd-01", "l1", ["L:\\"], "sqllog01"),
    ],
    databases=[
        database(
            "sql-prd-01",
            "Sales",
            [
                ("Sales", ROWS, "e:\\sqldata01\\Sales.mdf", None, "d1"),
                ("Sales2", ROWS, "E:\\SQLDataOld\\Sales2.ndf", None, "e"),
                ("Sales_log", LOG, "L:\\Sales_log.ldf", None, "l1"),
            ],
        ),
        database("sql-prd-01", "master", [("master", ROWS, "E:\\master.mdf", None, "e")]),
    ],
)

# LINUX of the Rust tests, with one more log file whose volume_id names no collected volume.
LINUX = host_facts(
    "lnx-sql01",
    volumes=[
        volume("lnx-sql01", "/dev/sda2", ["/"], None),
        volume("lnx-sql01", "/dev/md0", ["/var/opt/mssql/data"], "sqldata"),
        volume("lnx-sql01", "/dev/md1", ["/var/opt/mssql/log"], None),
    ],
    databases=[
        database(
            "lnx-sql01",
            "A",
            [
                ("A", ROWS, "/var/opt/mssql/data/A.mdf", None, "/dev/md0"),
                ("C_log", LOG, "/srv/C_log.ldf", "/dev/nope", None),
                ("A_log", LOG, "/var/opt/mssql/log/A_log.ldf", None, "/dev/md1"),
            ],
        ),
    ],
)

# Three user log files on one volume, listed after the volume of a fourth; system databases and
# tempdb, by role or by name, on a third volume; a volume with an empty label and no mount point
# (its files are joined to it by volume id).
MANY = host_facts(
    "h",
    volumes=[
        volume("h", "v1", ["L:\\", "C:\\mnt\\L"], "Data"),
        volume("h", "v2", [], ""),
        volume("h", "v3", ["S:\\"], "System"),
    ],
    databases=[
        database(
            "h", "A", [("A_log", LOG, "X:\\A.ldf", "v2", "v2"), ("A_log2", LOG, "L:\\A2.ldf", None, "v1")]
        ),
        database("h", "B", [("B_log", LOG, "L:\\B.ldf", None, "v1"), ("B", ROWS, "S:\\B.mdf", None, "v3")]),
        database("h", "C", [("C_log", LOG, "L:\\C.ldf", None, "v1")]),
        database("h", "MSDB", [("msdb_log", LOG, "S:\\m.ldf", None, "v3")]),
        database("h", "tempdb", [("templog", LOG, "S:\\t.ldf", None, "v3")]),
        database("h", "Renamed", [("r_log", LOG, "S:\\r.ldf", None, "v3")], role=f.DatabaseRole.SYSTEM),
        database("h", "Scratch", [("s_log", LOG, "S:\\s.ldf", None, "v3")], role=f.DatabaseRole.TEMPDB),
        database("h", "model", [("u_log", LOG, "X:\\u.ldf", "v2", "v2")], role=f.DatabaseRole.USER),
    ],
)


def config(rules=("ACM002",), config_json="{}", params=()):
    return t.CheckConfig(
        rules=[t.EnabledRule(code=c, params=list(params)) for c in rules],
        workload=None,
        stripe_units=[],
        config_json=config_json,
    )
