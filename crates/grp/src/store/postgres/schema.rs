//! The store's tables: made once under a lock, and on every connection checked to be the ones
//! this build uses (the version, then every column the store reads or writes with its type, and
//! the unique key the admission relies on).

use tokio_postgres::error::SqlState;
use tokio_postgres::Client;

use super::{bounded, Opened, SCHEMA_VERSION};
use crate::store::Create;

/// The advisory lock that nodes making the tables at once take in turn (transaction-scoped).
const LOCK: &str = "SELECT pg_advisory_xact_lock(4242001)";

/// Whether the version table is there, read from the catalog itself rather than by name
/// resolution: a plain query sees what committed before it started, so a node that waited on the
/// lock sees the tables the node before it made.
const EXISTS: &str = "
    SELECT EXISTS (
        SELECT 1 FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname = 'agentconf_grp_schema' AND n.nspname = ANY (current_schemas(false))
    )";

/// The tables, without `IF NOT EXISTS`: they are made only where the version table is not, and a
/// table of the same name left there is an error, not a store.
fn tables() -> String {
    format!(
        "
    CREATE TABLE agentconf_grp_schema (version integer NOT NULL);
    CREATE TABLE agentconf_grp_admitted (
        pair_key bytea PRIMARY KEY,
        scope_key bytea NOT NULL,
        cluster bytea NOT NULL,
        session_id bytea NOT NULL,
        publisher_id bytea NOT NULL,
        event_id bytea NOT NULL,
        handed_off boolean NOT NULL DEFAULT false,
        attempt bytea NOT NULL
    );
    CREATE INDEX agentconf_grp_admitted_scope ON agentconf_grp_admitted (scope_key);
    CREATE TABLE agentconf_grp_admissions (
        seq bigserial PRIMARY KEY,
        pair_key bytea NOT NULL UNIQUE,
        scope_key bytea NOT NULL,
        node text NOT NULL,
        admitted_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO agentconf_grp_schema (version) VALUES ({SCHEMA_VERSION});"
    )
}

/// Every column the store reads or writes, by table, with its type as `format_type` names it.
/// `pair_key` must be unique in both: the admission's `ON CONFLICT (pair_key)` and the one
/// record per pair rest on it.
const LAYOUT: &[(&str, &[(&str, &str)])] = &[
    (
        "agentconf_grp_admitted",
        &[
            ("pair_key", "bytea"),
            ("scope_key", "bytea"),
            ("cluster", "bytea"),
            ("session_id", "bytea"),
            ("publisher_id", "bytea"),
            ("event_id", "bytea"),
            ("handed_off", "boolean"),
            ("attempt", "bytea"),
        ],
    ),
    (
        "agentconf_grp_admissions",
        &[
            ("pair_key", "bytea"),
            ("scope_key", "bytea"),
            ("node", "text"),
            ("admitted_at", "timestamp with time zone"),
        ],
    ),
];

/// The columns of both tables as the search path resolves them (a table missing: one row with
/// no column), each with its type and whether a unique, valid, whole-table index has it as its
/// only key. From the catalog rather than `information_schema`, which lists every schema's
/// tables (the store's are the search path's) and only those the user has privileges on.
const COLUMNS: &str = "
    SELECT t.name, a.attname::text, format_type(a.atttypid, a.atttypmod),
           coalesce(EXISTS (
               SELECT 1 FROM pg_catalog.pg_index i
               WHERE i.indrelid = a.attrelid AND i.indisunique AND i.indisvalid
                 AND i.indpred IS NULL AND i.indexprs IS NULL
                 AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum
           ), false)
    FROM (VALUES ('agentconf_grp_admitted'), ('agentconf_grp_admissions')) AS t(name)
    LEFT JOIN pg_catalog.pg_attribute a
        ON a.attrelid = to_regclass(t.name) AND a.attnum > 0 AND NOT a.attisdropped";

/// Makes the tables if `create` allows and there are none, then checks them.
pub(super) async fn settle(client: &mut Client, create: Create) -> Result<(), Opened> {
    if create != Create::Never {
        make(client, create).await?;
    }
    check_version(version(client).await?)?;
    check_layout(client).await
}

/// The check and the creation in one transaction after the lock: of nodes creating at once on
/// an empty database exactly one makes the tables, and with [`Create::Only`] the others are
/// told they exist.
async fn make(client: &mut Client, create: Create) -> Result<(), Opened> {
    let transaction = bounded(client.transaction()).await?;
    bounded(transaction.batch_execute(LOCK)).await?;
    let exists: bool = bounded(transaction.query_one(EXISTS, &[]))
        .await?
        .try_get(0)?;
    match (exists, create) {
        // The transaction rolls back as it is dropped.
        (true, Create::Only) => return Err(Opened::Exists),
        (true, _) => {}
        (false, _) => bounded(transaction.batch_execute(&tables())).await?,
    }
    bounded(transaction.commit()).await
}

/// The versions in the version table, or `None` when there is no table.
async fn version(client: &Client) -> Result<Option<Vec<i32>>, Opened> {
    match bounded(client.query("SELECT version FROM agentconf_grp_schema", &[])).await {
        Ok(rows) => Ok(Some(
            rows.iter()
                .map(|r| r.try_get(0))
                .collect::<Result<_, _>>()
                .map_err(|_| Opened::Version("unreadable (not an integer column)".into()))?,
        )),
        Err(Opened::Client(e)) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Exactly one row, of [`SCHEMA_VERSION`].
fn check_version(found: Option<Vec<i32>>) -> Result<(), Opened> {
    match found.as_deref() {
        None => Err(Opened::NoSchema),
        Some([SCHEMA_VERSION]) => Ok(()),
        Some([other]) => Err(Opened::Version(other.to_string())),
        Some(rows) => Err(Opened::Version(format!(
            "unknown (the version table holds {} rows)",
            rows.len()
        ))),
    }
}

/// One column as the catalog has it.
struct Column {
    table: String,
    name: Option<String>,
    kind: Option<String>,
    unique: bool,
}

async fn check_layout(client: &Client) -> Result<(), Opened> {
    let rows = bounded(client.query(COLUMNS, &[])).await?;
    let columns = rows
        .iter()
        .map(|row| {
            Ok(Column {
                table: row.try_get(0)?,
                name: row.try_get(1)?,
                kind: row.try_get(2)?,
                unique: row.try_get(3)?,
            })
        })
        .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
    layout_fault(&columns).map_or(Ok(()), |why| Err(Opened::Layout(why)))
}

/// The first way `columns` differ from [`LAYOUT`], naming the table and column.
fn layout_fault(columns: &[Column]) -> Option<String> {
    for (table, expected) in LAYOUT {
        let found = |name: &str| {
            columns
                .iter()
                .find(|c| c.table == *table && c.name.as_deref() == Some(name))
        };
        if !columns
            .iter()
            .any(|c| c.table == *table && c.name.is_some())
        {
            return Some(format!("table {table} is missing"));
        }
        for (name, kind) in *expected {
            match found(name) {
                None => return Some(format!("table {table} has no column {name}")),
                Some(c) if c.kind.as_deref() != Some(*kind) => {
                    return Some(format!(
                        "column {table}.{name} is {}, not {kind}",
                        c.kind.as_deref().unwrap_or("of no type")
                    ))
                }
                Some(_) => {}
            }
        }
        if !found("pair_key").is_some_and(|c| c.unique) {
            return Some(format!(
                "column {table}.pair_key has no unique index of its own (one admission per pair \
                 rests on it)"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole() -> Vec<Column> {
        LAYOUT
            .iter()
            .flat_map(|(table, columns)| {
                columns.iter().map(|(name, kind)| Column {
                    table: table.to_string(),
                    name: Some(name.to_string()),
                    kind: Some(kind.to_string()),
                    unique: *name == "pair_key",
                })
            })
            .collect()
    }

    #[test]
    fn each_difference_is_named() {
        assert_eq!(layout_fault(&whole()), None);
        let mut columns = whole();
        columns.retain(|c| c.name.as_deref() != Some("handed_off"));
        assert_eq!(
            layout_fault(&columns).as_deref(),
            Some("table agentconf_grp_admitted has no column handed_off")
        );
        let mut columns = whole();
        columns[10].kind = Some("bytea".into());
        assert_eq!(
            layout_fault(&columns).as_deref(),
            Some("column agentconf_grp_admissions.node is bytea, not text")
        );
        let mut columns = whole();
        columns[8].unique = false;
        assert!(layout_fault(&columns)
            .unwrap()
            .starts_with("column agentconf_grp_admissions.pair_key has no unique index"));
        let mut columns = whole();
        columns.retain(|c| c.table != "agentconf_grp_admitted");
        columns.push(Column {
            table: "agentconf_grp_admitted".into(),
            name: None,
            kind: None,
            unique: false,
        });
        assert_eq!(
            layout_fault(&columns).as_deref(),
            Some("table agentconf_grp_admitted is missing")
        );
    }
}
