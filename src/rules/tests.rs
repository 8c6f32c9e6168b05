//! The catalogue's own checks: ids, serialisation, and the symmetry audit (every input rule has
//! its output mirror and every directional kind its opposite, unless a waiver says why not).

use super::*;

#[test]
fn ids_unique_and_kebab() {
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in RULES.iter().enumerate() {
        assert!(seen.insert(r.id), "duplicate rule {}", r.id);
        assert!(r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", r.id);
        assert_eq!(r.rule as usize, i, "{}", r.id);
        assert_eq!(r.rule.as_str(), r.id);
    }
    assert_eq!(RuleId::ALL.len(), RULES.len());
}

#[test]
fn ids_serialise_as_kebab_case() {
    for r in RULES {
        let json = serde_json::to_string(&r.rule).unwrap();
        assert_eq!(json, format!("\"{}\"", r.id));
        assert_eq!(serde_json::from_str::<RuleId>(&json).unwrap(), r.rule);
    }
    let e = serde_json::from_str::<RuleId>("\"type-widend\"").unwrap_err();
    assert!(e.to_string().contains("did you mean `type-widened`"), "{e}");
}

#[test]
fn ordered_by_id_text() {
    let mut by_enum: Vec<RuleId> = RuleId::ALL.to_vec();
    by_enum.sort();
    let mut by_text: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    by_text.sort_unstable();
    assert_eq!(by_enum.iter().map(|r| r.as_str()).collect::<Vec<_>>(), by_text);
}

/// Gaps in the input/output mirror, each with its reason. A waiver for a rule that has a mirror
/// (or no longer exists) is stale and fails.
const MIRROR_WAIVERS: &[(RuleId, &str)] = &[
    (RuleId::OutputSchemaAdded, "the whole outputSchema appearing has no input counterpart: inputSchema is required"),
    (RuleId::OutputSchemaRemoved, "the whole outputSchema going has no input counterpart: inputSchema is required"),
    (
        RuleId::HeaderMappingChanged,
        "x-mcp-header maps an argument the model sends to an HTTP header; results have none (the walker reads it as a plain keyword in outputSchema)",
    ),
];

/// Directional kinds whose opposite has no rule on a side, each with its reason.
const FLIP_WAIVERS: &[(Kind, Surface, &str)] = &[];

#[test]
fn output_rules_mirror_input_rules() {
    for (id, why) in MIRROR_WAIVERS {
        assert!(!why.is_empty(), "waiver {id} has no reason");
        assert!(mirror(*id).is_none(), "stale waiver {id}: it has a mirror");
    }
    for r in RULES.iter().filter(|r| r.surface.mirror().is_some()) {
        if MIRROR_WAIVERS.iter().any(|(id, _)| *id == r.rule) {
            continue;
        }
        let m = mirror(r.rule).unwrap_or_else(|| panic!("{} has no mirror", r.id));
        assert_eq!(mirror(m), Some(r.rule), "{} and {m} are not each other's mirror", r.id);
    }
    // Direction table of RULES.md.
    for (id, c) in [
        (RuleId::OutputPropertyRemoved, S),
        (RuleId::OutputRequiredRemoved, S),
        (RuleId::OutputTypeWidened, S),
        (RuleId::OutputEnumValueAdded, S),
        (RuleId::OutputConstraintLoosened, S),
        (RuleId::OutputPropertyAdded, L),
        (RuleId::OutputRequiredAdded, L),
        (RuleId::OutputTypeNarrowed, L),
        (RuleId::OutputEnumValueRemoved, L),
        (RuleId::OutputConstraintTightened, L),
        (RuleId::OutputSchemaRemoved, S),
        (RuleId::OutputSchemaAdded, L),
    ] {
        assert_eq!(id.class(), c, "{id}");
    }
    // RULES names the outputSchema's `$schema` rule: the mirror of `schema-dialect-changed`.
    assert_eq!(mirror(RuleId::SchemaDialectChanged), Some(RuleId::OutputSchemaDialectChanged));
    assert_eq!(RuleId::OutputSchemaDialectChanged.as_str(), "output-schema-dialect-changed");
    assert_eq!(RuleId::OutputSchemaDialectChanged.class(), Class::Cosmetic);
}

#[test]
fn directional_kinds_have_both_directions() {
    for kind in Kind::ALL {
        assert_eq!(kind.flip().flip(), kind, "{kind:?}");
        if !kind.directional() {
            continue;
        }
        for side in [Surface::InputSchema, Surface::OutputSchema] {
            let has = |k: Kind| RULES.iter().any(|r| r.kind == Some(k) && r.surface == side);
            if has(kind) && !has(kind.flip()) {
                assert!(
                    FLIP_WAIVERS.iter().any(|(k, s, _)| *k == kind && *s == side),
                    "{kind:?} has a rule in {} but its opposite {:?} has none",
                    side.as_str(),
                    kind.flip()
                );
            }
        }
    }
}

#[test]
fn every_kind_resolves() {
    // Kinds the walker emits in both directions resolve to a rule of that direction (or to the
    // one id every surface shares); the mirror waivers are the only gaps.
    for kind in Kind::ALL {
        for side in [Surface::InputSchema, Surface::OutputSchema] {
            let r = resolve(kind, side);
            assert_eq!(r.info().kind, Some(kind));
            let waived = MIRROR_WAIVERS.iter().any(|(id, _)| r.info().kind == id.info().kind);
            assert!(r.surface() == side || r.surface() == Surface::Tool || waived, "{kind:?} in {}", side.as_str());
        }
    }
    assert_eq!(resolve(Kind::TypeWidened, Surface::OutputSchema), RuleId::OutputTypeWidened);
    assert_eq!(resolve(Kind::DescriptionReflowed, Surface::OutputSchema), RuleId::DescriptionReflowed);
}

#[test]
fn explain_and_validate() {
    assert!(explain("required-removed").unwrap().contains("silent"));
    assert!(explain("nope").is_none());
    assert_eq!(validate_override("type-widened"), Ok(RuleId::TypeWidened));
    let e = validate_override("type-widend").unwrap_err();
    assert_eq!(e.suggestion.as_deref(), Some("type-widened"));
}

#[test]
fn report_only_ids_are_not_rules() {
    // They must never collide with a rule id (SARIF lists both in one `rules[]`).
    for id in [SERVER_ERROR_RULE, PROBE_FAILED_RULE] {
        assert!(lookup(id).is_none(), "{id}");
    }
}

/// The risk ranks form one band per class, so a report ordered by class and then risk reads
/// highest risk first whatever the class (and SARIF's severities match the classes).
#[test]
fn risk_bands_follow_the_classes() {
    for r in RULES {
        let band = match r.class {
            Class::Silent => 50..=100,
            Class::Loud => 10..=39,
            Class::Cosmetic => 1..=9,
        };
        assert!(band.contains(&r.risk), "{}: risk {} is outside the {} band {band:?}", r.id, r.risk, r.class);
    }
    // What the reports lead with: a removed tool outranks reworded text, which outranks a title.
    assert!(RuleId::ToolRemoved.risk() > RuleId::DescriptionChanged.risk());
    assert!(RuleId::RequiredRemoved.risk() > RuleId::SchemaDescriptionChanged.risk());
    assert!(RuleId::ToolAdded.risk() > RuleId::TitleChanged.risk());
}

/// The rules whose values are prose the model reads are the text rules, and only those.
#[test]
fn prose_rules_are_the_text_rules() {
    let prose: Vec<&str> = RULES.iter().filter(|r| r.shows == Shows::Prose).map(|r| r.id).collect();
    assert_eq!(
        prose,
        [
            "description-changed",
            "description-reflowed",
            "schema-description-changed",
            "output-schema-description-changed",
            "instructions-changed"
        ]
    );
}

/// The run-time action is a column of the table (`does ACTION`): the rules the proxy treats
/// otherwise than by class say so there, and every other rule acts by its class.
#[test]
fn run_time_actions_come_from_the_table() {
    use super::RunTime;
    let special: Vec<(RuleId, RunTime)> =
        RULES.iter().filter(|r| r.runtime != RunTime::ByClass).map(|r| (r.rule, r.runtime)).collect();
    assert_eq!(
        special,
        vec![
            (RuleId::ToolAdded, RunTime::New),
            (RuleId::ToolRemoved, RunTime::Gone),
            (RuleId::DescriptionChanged, RunTime::PinnedWords),
            (RuleId::DescriptionReflowed, RunTime::PinnedWords),
            (RuleId::TitleChanged, RunTime::PinnedWords),
            (RuleId::AnnotationRelaxed, RunTime::PinnedHints),
            (RuleId::AnnotationTitleChanged, RunTime::PinnedWords),
            (RuleId::SchemaDescriptionChanged, RunTime::PinnedWords),
            (RuleId::SchemaTitleChanged, RunTime::PinnedWords),
            (RuleId::OutputSchemaDescriptionChanged, RunTime::PinnedWords),
            (RuleId::OutputSchemaTitleChanged, RunTime::PinnedWords),
            (RuleId::InstructionsChanged, RunTime::PinnedField),
            (RuleId::StructuredContentMissing, RunTime::BlockResult),
            (RuleId::StructuredContentInvalid, RunTime::BlockResult),
            (RuleId::ResultPayloadInvalid, RunTime::BlockResult),
        ]
    );
    // Served as pinned are the words the model reads, nothing that constrains a call: each
    // such rule shows prose or is a title (a display name), and none has a hidden character.
    for r in RULES.iter().filter(|r| r.runtime == RunTime::PinnedWords) {
        assert!(r.shows == super::Shows::Prose || r.id.contains("title"), "{}", r.id);
    }
    // Only a server-level rule can serve a pinned field, and only a tool rule act on a tool.
    for r in RULES {
        match r.runtime {
            RunTime::PinnedField => assert_eq!(r.surface, super::Surface::Server, "{}", r.id),
            RunTime::Gone | RunTime::New | RunTime::PinnedHints => {
                assert_eq!(r.surface, super::Surface::Tool, "{}", r.id)
            }
            RunTime::PinnedWords => assert_ne!(r.surface, super::Surface::Server, "{}", r.id),
            RunTime::BlockResult => assert_eq!(r.surface, super::Surface::Probe, "{}", r.id),
            RunTime::ByClass => {}
        }
    }
}
