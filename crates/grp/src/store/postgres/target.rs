//! Which database a PostgreSQL store reaches and which part of it is its own: the `postgres://`
//! URL, the address that replaces its host and port when a node reaches the database through
//! another address, the cluster token that namespaces the admitted set and the node's name.

use std::fmt;

use crate::store::ClusterEnv;

/// A PostgreSQL store's database and namespace.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresTarget {
    /// The connection URL (`postgres://` or `postgresql://`), possibly with a password: never
    /// shown; [`PostgresTarget`]'s `Display` shows the user, address and database only.
    url: String,
    /// The cluster token (`""` outside a cluster): first part of every admitted pair's key.
    pub cluster: String,
    /// The node recording admissions (`""` when unnamed).
    pub node: String,
}

/// Why a `postgres://` spec names no database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// The URL is not one the client reads.
    Url { shown: String, why: String },
    /// `AGENTCONF_STORE_ADDR` is not `HOST:PORT`.
    Address(String),
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::Url { shown, why } => {
                write!(f, "admission store {shown}: not a PostgreSQL URL: {why}")
            }
            TargetError::Address(addr) => write!(
                f,
                "AGENTCONF_STORE_ADDR {addr:?}: expected HOST:PORT (the address the shared \
                 store is reached at)"
            ),
        }
    }
}

impl PostgresTarget {
    /// The database `url` names, outside any cluster. The URL is read here, so a spec that
    /// parses names a database the client can try.
    pub fn new(url: &str) -> Result<PostgresTarget, TargetError> {
        let target = PostgresTarget {
            url: url.to_string(),
            cluster: String::new(),
            node: String::new(),
        };
        target.config()?;
        Ok(target)
    }

    /// This target as a cluster node reaches it: `env`'s address in place of the URL's host and
    /// port, `env`'s cluster token and node name.
    pub fn in_cluster(&self, env: &ClusterEnv) -> Result<PostgresTarget, TargetError> {
        let url = match &env.store_addr {
            Some(addr) => with_address(&self.url, addr)?,
            None => self.url.clone(),
        };
        let target = PostgresTarget {
            url,
            cluster: env.cluster.clone().unwrap_or_default(),
            node: env.node.clone().unwrap_or_default(),
        };
        target.config()?;
        Ok(target)
    }

    /// The client's reading of the URL.
    pub(super) fn config(&self) -> Result<tokio_postgres::Config, TargetError> {
        // The client reads `postgres://` and `postgresql://` alike.
        let config = self
            .url
            .parse::<tokio_postgres::Config>()
            .map_err(|e| TargetError::Url {
                shown: shown(&self.url),
                why: e.to_string(),
            })?;
        // A NUL (`%00`) cannot travel in the protocol's strings: the server would never see the
        // value as written. Refused here, at start, rather than found (or not, behind a refused
        // port) at the first connection.
        let with_nul = [
            ("user", config.get_user().map(str::as_bytes)),
            ("database", config.get_dbname().map(str::as_bytes)),
            ("password", config.get_password()),
            ("options", config.get_options().map(str::as_bytes)),
            (
                "application_name",
                config.get_application_name().map(str::as_bytes),
            ),
        ]
        .into_iter()
        .find(|(_, value)| value.is_some_and(|v| v.contains(&0)));
        if let Some((part, _)) = with_nul {
            return Err(TargetError::Url {
                shown: shown(&self.url),
                why: format!("its {part} holds a NUL byte (%00), which PostgreSQL cannot carry"),
            });
        }
        Ok(config)
    }
}

impl fmt::Display for PostgresTarget {
    /// `postgres://USER@HOST:PORT/DB`, never the password; the cluster token when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shown(&self.url))?;
        if !self.cluster.is_empty() {
            write!(f, " (cluster {:?})", self.cluster)?;
        }
        Ok(())
    }
}

impl fmt::Debug for PostgresTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The URL without its password (and without its query, which may carry one).
fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return "a URL that is not postgres://…".to_string();
    };
    let (authority, path) = split_authority(rest);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => format!("{}@{host}", user.split(':').next().unwrap_or_default()),
        None => authority.to_string(),
    };
    let path = path.split('?').next().unwrap_or_default();
    format!("{scheme}://{authority}{path}")
}

/// `USER:PASSWORD@HOST:PORT` and what follows it (`/DB?…`).
fn split_authority(rest: &str) -> (&str, &str) {
    rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()))
}

/// `url` with `addr` (`HOST:PORT`) in place of its host and port.
fn with_address(url: &str, addr: &str) -> Result<String, TargetError> {
    let bad_address = || TargetError::Address(addr.to_string());
    let (host, port) = addr.rsplit_once(':').ok_or_else(bad_address)?;
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(bad_address());
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(TargetError::Url {
            shown: shown(url),
            why: "no scheme".into(),
        });
    };
    let (authority, path) = split_authority(rest);
    let user = authority.rsplit_once('@').map_or("", |(user, _)| user);
    let at = if user.is_empty() { "" } else { "@" };
    Ok(format!("{scheme}://{user}{at}{addr}{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_replaces_host_and_port_only() {
        assert_eq!(
            with_address(
                "postgres://grp:secret@db:5432/agentconf?sslmode=disable",
                "127.0.0.1:7000"
            )
            .unwrap(),
            "postgres://grp:secret@127.0.0.1:7000/agentconf?sslmode=disable"
        );
        assert_eq!(
            with_address("postgresql://db/agentconf", "proxy:1").unwrap(),
            "postgresql://proxy:1/agentconf"
        );
        for addr in ["proxy", ":5432", "proxy:", "proxy:99999"] {
            assert_eq!(
                with_address("postgres://db/x", addr),
                Err(TargetError::Address(addr.to_string())),
                "{addr}"
            );
        }
    }

    #[test]
    fn the_password_is_never_shown() {
        let target =
            PostgresTarget::new("postgres://grp:secret@db:5432/agentconf?password=x").unwrap();
        let env = ClusterEnv {
            store_addr: Some("10.0.0.1:6000".into()),
            cluster: Some("scenario-7".into()),
            ..ClusterEnv::default()
        };
        let node = target.in_cluster(&env).unwrap();
        assert_eq!(target.to_string(), "postgres://grp@db:5432/agentconf");
        assert_eq!(
            node.to_string(),
            "postgres://grp@10.0.0.1:6000/agentconf (cluster \"scenario-7\")"
        );
        assert!(!format!("{node:?}").contains("secret"));
        assert!(PostgresTarget::new("postgres://db:notaport/x").is_err());
        for nul in [
            "postgres://u@127.0.0.1:1/db%00x",
            "postgres://u%00v@db/x",
            "postgres://u:p%00w@db/x",
        ] {
            let refused = PostgresTarget::new(nul).unwrap_err().to_string();
            assert!(refused.contains("NUL"), "{nul}: {refused}");
            assert!(
                !refused.contains("p%00w") && !refused.contains("p\0w"),
                "{refused}"
            );
        }
    }
}
