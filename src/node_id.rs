//! Where a generator's node ID comes from.
//!
//! [`NodeIdSource`] covers the sources that need no coordination service: a value given, an
//! environment variable, and a Kubernetes StatefulSet pod's ordinal. The crate `snowmint-etcd`
//! leases node IDs from etcd that no two live generators share.

use std::env;
use std::fs;

use crate::error::{Error, Result, bounded};
use crate::layout::Layout;

/// A source of a node ID, resolved against a layout's node field.
///
/// Every source checks its value against the field's range, and its errors say where the
/// value came from ([`Error::NodeIdSource`]).
///
/// | source | value | pick it when |
/// |---|---|---|
/// | `Explicit(n)` | `n` | one machine, or IDs handed out by hand or by a deploy tool |
/// | `Env(name)` | the decimal value of the variable | the orchestrator sets a distinct value per instance |
/// | `HostOrdinal(host)` | the trailing `-N` of the host name (`web-3` → 3) | a Kubernetes StatefulSet: pods keep their ordinal across restarts, and no two live pods share one |
///
/// A StatefulSet's ordinals are unique only within it: two StatefulSets minting with one
/// layout need distinct values of another node field, or leases (`snowmint-etcd`).
///
/// # Kubernetes
///
/// `Env` serves the two indexes Kubernetes gives a pod. A StatefulSet pod carries its ordinal
/// in the label `apps.kubernetes.io/pod-index` (Kubernetes 1.28 and later), which the
/// downward API turns into a variable:
///
/// ```yaml
/// # in the StatefulSet's pod template
/// env:
///   - name: POD_INDEX
///     valueFrom:
///       fieldRef:
///         fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
/// ```
///
/// and `NodeIdSource::Env("POD_INDEX".into())` reads it (`HostOrdinal` reads the same number
/// from the pod's name, on any version). An Indexed Job (`completionMode: Indexed`) sets
/// `JOB_COMPLETION_INDEX` in each pod itself: `NodeIdSource::Env("JOB_COMPLETION_INDEX".into())`.
/// Both are unique among the live pods of one StatefulSet or Job, and the value is checked
/// against the node field's range: a StatefulSet scaled past the field's size fails to start
/// with an error naming the variable, rather than sharing a node ID.
///
/// ```
/// use snowmint::{Layout, node_id::NodeIdSource};
///
/// // In an Indexed Job's pod, JOB_COMPLETION_INDEX holds its index; elsewhere it is unset.
/// let source = NodeIdSource::Env("JOB_COMPLETION_INDEX".to_owned());
/// match source.resolve(&Layout::TWITTER, "machine") {
///     Ok(machine) => assert!(machine <= 1023),
///     Err(err) => assert!(err.to_string().contains("environment variable JOB_COMPLETION_INDEX")),
/// }
/// ```
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, node_id::NodeIdSource};
///
/// let source = NodeIdSource::HostOrdinal(Some("orders-7".to_owned()));
/// let machine = source.resolve(&Layout::TWITTER, "machine")?;
/// assert_eq!(machine, 7);
/// let generator = Generator::builder(Layout::TWITTER).node("machine", machine).build()?;
/// assert_eq!(generator.decode(generator.mint()?)?.node("machine"), Some(7));
///
/// let err = NodeIdSource::HostOrdinal(Some("orders".to_owned()))
///     .resolve(&Layout::TWITTER, "machine")
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "node id from host name \"orders\": it does not end in -N, a StatefulSet pod's \
///      ordinal; expected a name like orders-0"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeIdSource {
    /// This value.
    Explicit(u64),
    /// The decimal value of this environment variable.
    Env(String),
    /// The trailing `-N` of this host name, or of this host's name when `None` (read from
    /// `HOSTNAME`, which Kubernetes sets to the pod's name, else from the kernel).
    HostOrdinal(Option<String>),
}

impl NodeIdSource {
    /// The node ID for `layout`'s node field called `field`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownNodeField`] when the layout has no such field; [`Error::NodeIdSource`]
    /// when the variable is unset or not a decimal number, the host name does not end in
    /// `-N`, or the value does not fit the field, each naming where the value came from.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, node_id::NodeIdSource};
    ///
    /// assert_eq!(NodeIdSource::Explicit(3).resolve(&Layout::DISCORD, "worker")?, 3);
    /// let err = NodeIdSource::Env("SNOWMINT_DOC_UNSET".to_owned())
    ///     .resolve(&Layout::DISCORD, "worker")
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "node id from environment variable SNOWMINT_DOC_UNSET: it is not set; expected a \
    ///      worker id in 0..=31"
    /// );
    /// let err = NodeIdSource::HostOrdinal(Some("web-40".to_owned()))
    ///     .resolve(&Layout::DISCORD, "worker")
    ///     .unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "node id from host name \"web-40\": worker id 40 is out of range for layout discord (0..=31)"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn resolve(&self, layout: &Layout, field: &str) -> Result<u64> {
        let max = layout
            .node_field(field)
            .ok_or_else(|| layout.unknown_node(field))?
            .max();
        let (origin, value) = match self {
            NodeIdSource::Explicit(value) => ("the value given".to_owned(), Ok(*value)),
            NodeIdSource::Env(name) => (
                format!("environment variable {}", bounded(name)),
                env_value(env::var(name), field, max),
            ),
            NodeIdSource::HostOrdinal(host) => {
                let host = match host {
                    Some(host) => host.clone(),
                    None => host_name()?,
                };
                (format!("host name {:?}", bounded(&host)), ordinal(&host))
            }
        };
        let value = value.map_err(|reason| Error::NodeIdSource {
            origin: origin.clone(),
            reason,
        })?;
        layout
            .node_bits(&[(field, value)])
            .map_err(|error| Error::NodeIdSource {
                origin,
                reason: error.to_string(),
            })?;
        Ok(value)
    }
}

/// The node ID in an environment variable's value `found`; the error repeats at most 64
/// characters of it.
fn env_value(found: Result<String, env::VarError>, field: &str, max: u64) -> Result<u64, String> {
    let expected = format!("expected a {field} id in 0..={max}");
    match found {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| format!("it holds {:?}; {expected}", bounded(&text))),
        Err(env::VarError::NotPresent) => Err(format!("it is not set; {expected}")),
        Err(env::VarError::NotUnicode(text)) => Err(format!(
            "it holds {:?}; {expected}",
            bounded(&text.to_string_lossy())
        )),
    }
}

/// The ordinal of a StatefulSet pod's name: the decimal digits after its last `-`.
fn ordinal(host: &str) -> Result<u64, String> {
    // A fully qualified name (`web-3.web.default.svc`) names the pod by its first label.
    let pod = host.split('.').next().unwrap_or(host);
    let digits = match pod.rsplit_once('-') {
        Some((name, digits))
            if !name.is_empty()
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit()) =>
        {
            digits
        }
        _ => {
            let stem = pod.rsplit_once('-').map_or(pod, |(name, _)| name);
            let stem = if stem.is_empty() { "web" } else { stem };
            let stem = bounded(stem);
            return Err(format!(
                "it does not end in -N, a StatefulSet pod's ordinal; expected a name like {stem}-0"
            ));
        }
    };
    digits.parse().map_err(|_| {
        format!(
            "its ordinal {} is larger than {}",
            bounded(digits),
            u64::MAX
        )
    })
}

/// This host's name: `HOSTNAME` (Kubernetes sets it to the pod's name), else the kernel's.
fn host_name() -> Result<String> {
    if let Ok(name) = env::var("HOSTNAME") {
        if !name.trim().is_empty() {
            return Ok(name.trim().to_owned());
        }
    }
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| {
            let name = fs::read_to_string(path).ok()?;
            let name = name.trim();
            (!name.is_empty()).then(|| name.to_owned())
        })
        .ok_or_else(|| Error::NodeIdSource {
            origin: "this host's name".to_owned(),
            reason: "HOSTNAME is unset and neither /proc/sys/kernel/hostname nor /etc/hostname \
                     could be read; expected a StatefulSet pod's name like web-0"
                .to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_the_trailing_number() {
        assert_eq!(ordinal("web-0"), Ok(0));
        assert_eq!(ordinal("orders-api-12"), Ok(12));
        assert_eq!(ordinal("web-3.web.default.svc.cluster.local"), Ok(3));
        assert!(ordinal("web").unwrap_err().contains("like web-0"));
        assert!(ordinal("web-").unwrap_err().contains("like web-0"));
        assert!(ordinal("web-3a").unwrap_err().contains("like web-0"));
        assert!(ordinal("-3").is_err());
        assert!(ordinal("web-+3").is_err());
        assert!(
            ordinal("web-99999999999999999999")
                .unwrap_err()
                .contains("larger than")
        );
    }

    /// Regression: an environment variable's value and a host name were repeated whole in
    /// errors. They are bounded to 64 characters and an ellipsis.
    #[test]
    fn errors_repeat_at_most_64_characters_of_a_value_or_name() {
        let long = "7".repeat(100_000) + "x";
        let reason = env_value(Ok(long.clone()), "machine", 1023).unwrap_err();
        assert!(reason.len() < 200, "{} bytes", reason.len());
        assert!(reason.contains("…"), "{reason}");
        let err = NodeIdSource::HostOrdinal(Some(format!("{long}-{long}")))
            .resolve(&Layout::TWITTER, "machine")
            .unwrap_err();
        assert!(
            err.to_string().len() < 400,
            "{} bytes",
            err.to_string().len()
        );
        let err = NodeIdSource::HostOrdinal(Some(format!("web-{}", "9".repeat(100_000))))
            .resolve(&Layout::TWITTER, "machine")
            .unwrap_err();
        assert!(
            err.to_string().len() < 400,
            "{} bytes",
            err.to_string().len()
        );
    }

    #[test]
    fn values_are_checked_against_the_field() {
        let layout = Layout::TWITTER;
        assert_eq!(
            NodeIdSource::Explicit(1023).resolve(&layout, "machine"),
            Ok(1023)
        );
        let err = NodeIdSource::Explicit(1024)
            .resolve(&layout, "machine")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "node id from the value given: machine id 1024 is out of range for layout twitter (0..=1023)"
        );
        assert!(matches!(
            NodeIdSource::Explicit(1).resolve(&layout, "worker"),
            Err(Error::UnknownNodeField { .. })
        ));
    }

    #[test]
    fn this_hosts_name_is_found() {
        // Every test machine has a name; whether it ends in -N decides the result.
        let name = host_name().unwrap();
        assert!(!name.is_empty());
        let resolved = NodeIdSource::HostOrdinal(None).resolve(&Layout::SONYFLAKE, "machine");
        match ordinal(&name) {
            Ok(n) if n <= 65_535 => assert_eq!(resolved, Ok(n)),
            _ => assert!(matches!(resolved, Err(Error::NodeIdSource { .. }))),
        }
    }
}
