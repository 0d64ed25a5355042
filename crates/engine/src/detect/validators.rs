//! The registry of built-in checks a rule can name with `validator = "..."`: the parts
//! of detection that need code (checksums, address classes, domain lists). Adding one
//! means one variant, one name, one line of dispatch.

use super::domains::DomainPolicy;
use super::{email, hostname, ip, local_path, pii, secret};

/// What a validator sees: the candidate value and its immediate surroundings inside the
/// same decoded string, plus the JSON member name when there is one.
pub struct Candidate<'a> {
    pub value: &'a [u8],
    pub before: &'a [u8],
    pub after: &'a [u8],
    pub key: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validator {
    Email,
    InternalHost,
    OrgHost,
    Ipv4,
    Ipv6,
    LocalPath,
    Luhn,
    Iban,
    UsSsn,
    RoCnp,
    EsDni,
    Phone,
    SecretValue,
    KeyMaterial,
    NamedKey,
    KeyedSecret,
    ProseSecret,
    GetterSecret,
    BasicAuth,
    CryptHash,
}

impl Validator {
    pub const ALL: [Validator; 20] = [
        Validator::Email,
        Validator::InternalHost,
        Validator::OrgHost,
        Validator::Ipv4,
        Validator::Ipv6,
        Validator::LocalPath,
        Validator::Luhn,
        Validator::Iban,
        Validator::UsSsn,
        Validator::RoCnp,
        Validator::EsDni,
        Validator::Phone,
        Validator::SecretValue,
        Validator::KeyMaterial,
        Validator::NamedKey,
        Validator::KeyedSecret,
        Validator::ProseSecret,
        Validator::GetterSecret,
        Validator::BasicAuth,
        Validator::CryptHash,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Validator::Email => "email",
            Validator::InternalHost => "internal_host",
            Validator::OrgHost => "org_host",
            Validator::Ipv4 => "ipv4",
            Validator::Ipv6 => "ipv6",
            Validator::LocalPath => "local_path",
            Validator::Luhn => "luhn",
            Validator::Iban => "iban",
            Validator::UsSsn => "us_ssn",
            Validator::RoCnp => "ro_cnp",
            Validator::EsDni => "es_dni",
            Validator::Phone => "phone",
            Validator::SecretValue => "secret_value",
            Validator::KeyMaterial => "key_material",
            Validator::NamedKey => "named_key",
            Validator::KeyedSecret => "keyed_secret",
            Validator::GetterSecret => "getter_secret",
            Validator::ProseSecret => "prose_secret",
            Validator::BasicAuth => "basic_auth",
            Validator::CryptHash => "crypt_hash",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Validator::Email => {
                "domain is not reserved or allowed and ends in a real or internal suffix"
            }
            Validator::InternalHost => "name ends in a private suffix and is not a file name",
            Validator::OrgHost => "name is under a configured organisation domain",
            Validator::Ipv4 => {
                "not loopback, unspecified, documentation, multicast or a version string"
            }
            Validator::Ipv6 => {
                "not loopback, unspecified or documentation (2001:db8::/32, 3fff::/20)"
            }
            Validator::LocalPath => "not part of a URL",
            Validator::Luhn => "Luhn checksum and a card-issuer prefix",
            Validator::Iban => "country length and ISO 7064 mod-97 checksum",
            Validator::UsSsn => "valid area, group and serial; not an advertised sample",
            Validator::RoCnp => "Romanian CNP: valid date, county and checksum",
            Validator::EsDni => "Spanish DNI/NIE check letter",
            Validator::Phone => "plausible digit count and not a reserved fictional number",
            Validator::SecretValue => {
                "not a placeholder or variable reference; hex or a UUID only under a credential's name"
            }
            Validator::KeyMaterial => {
                "not a placeholder, filler or variable reference (hex and UUID keys count)"
            }
            Validator::NamedKey => "key_material, and not assigned to an id or digest name",
            Validator::KeyedSecret => {
                "secret_value with 3.5 bits per byte, or a hex/UUID key under a credential name"
            }
            Validator::ProseSecret => {
                "keyed_secret; named by prose (a blank or a dash), neither hex nor a UUID, nor called a digest, cache or public key there"
            }
            Validator::GetterSecret => {
                "keyed_secret, returned by a function whose name does not say it is no credential"
            }
            Validator::BasicAuth => "base64 of user:password with a real password",
            Validator::CryptHash => {
                "a crypt hash whose salt and digest are not placeholder or filler"
            }
        }
    }

    pub fn from_name(name: &str) -> Option<Validator> {
        Validator::ALL.into_iter().find(|v| v.name() == name)
    }

    pub fn check(self, c: &Candidate<'_>, domains: &DomainPolicy) -> bool {
        match self {
            Validator::Email => email::is_reportable(c, domains),
            Validator::InternalHost => hostname::is_internal(c, domains),
            Validator::OrgHost => hostname::is_org(c, domains),
            Validator::Ipv4 => ip::is_identifying_v4(c),
            Validator::Ipv6 => ip::is_identifying_v6(c),
            Validator::LocalPath => local_path::is_local(c),
            Validator::Luhn => pii::is_card(c.value),
            Validator::Iban => pii::is_iban(c.value),
            Validator::UsSsn => pii::is_ssn(c.value),
            Validator::RoCnp => pii::is_ro_cnp(c.value),
            Validator::EsDni => pii::is_es_dni(c.value),
            Validator::Phone => pii::is_phone(c),
            Validator::SecretValue => secret::is_secret_value(c.value, c.before, c.key),
            Validator::KeyMaterial => secret::is_key_material(c.value),
            Validator::KeyedSecret => secret::is_assigned_secret(c),
            Validator::ProseSecret => secret::is_assigned_secret(c) && !secret::prose_rules_out(c),
            // The value's name is the function's (`getNextPageToken()`), not the `return`
            // just before it.
            Validator::GetterSecret => {
                secret::is_assigned_secret(c)
                    && !super::names::named_as_not_secret(getter_name(c.before), None)
            }
            Validator::NamedKey => {
                secret::is_key_material(c.value)
                    && !super::names::named_as_not_secret(c.before, c.key)
            }
            Validator::BasicAuth => secret::is_basic_credential(c.value),
            Validator::CryptHash => secret::is_crypt_hash(c.value),
        }
    }
}

/// The name of the function whose body `before` ends in: the identifier before the
/// last `(` (`getApiKey` of `func (c *C) getApiKey() string { return "`).
fn getter_name(before: &[u8]) -> &[u8] {
    let Some(open) = before.iter().rposition(|&b| b == b'(') else {
        return b"";
    };
    let name = &before[..open];
    let start = name
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map_or(0, |i| i + 1);
    &name[start..]
}

/// Shannon entropy in bits per byte.
pub fn entropy(value: &[u8]) -> f64 {
    if value.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in value {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}
