//! Every test card the app offers is one the embedded mock PSP knows: the screen once
//! offered a Mastercard the PSP refused, so choosing it always ended "Not charged".

#[test]
fn every_card_the_screen_offers_is_known_to_the_mock_psp() {
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui");
    let mut offered = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&ui).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(path.extension().and_then(|e| e.to_str()), Some("html" | "js")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("pm_card_") {
            let name: String = text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            offered.insert(name);
        }
    }
    assert!(offered.len() >= 3, "the card list was not found in ui/: {offered:?}");
    for pm in &offered {
        assert!(mock_psp::api::TestPaymentMethod::parse(pm).is_some(), "the screen offers {pm}, which the mock PSP refuses");
    }
}
