//! Display of integer minor units. Amounts never pass through floating point.

/// Number of minor-unit digits of an ISO 4217 currency (the few PayDesk knows).
pub fn exponent(currency: &str) -> u32 {
    match currency.to_ascii_uppercase().as_str() {
        "JPY" | "KRW" | "VND" | "CLP" => 0,
        "BHD" | "KWD" | "OMR" | "JOD" | "TND" => 3,
        _ => 2,
    }
}

fn symbol(currency: &str) -> Option<&'static str> {
    match currency.to_ascii_uppercase().as_str() {
        "USD" => Some("$"),
        "EUR" => Some("€"),
        "GBP" => Some("£"),
        "JPY" => Some("¥"),
        _ => None,
    }
}

/// `1234, "USD"` → `"$12.34"`; `-50, "USD"` → `"−$0.50"`; `1200, "JPY"` → `"¥1,200"`.
pub fn format(minor: i64, currency: &str) -> String {
    let exp = exponent(currency);
    let neg = minor < 0;
    let abs = minor.unsigned_abs();
    let scale = 10u64.pow(exp);
    let (major, frac) = (abs / scale, abs % scale);
    let digits = major.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let number = if exp > 0 {
        format!("{grouped}.{frac:0width$}", width = exp as usize)
    } else {
        grouped
    };
    let body = match symbol(currency) {
        Some(sym) => format!("{sym}{number}"),
        None => format!("{number} {}", currency.to_ascii_uppercase()),
    };
    if neg {
        format!("−{body}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::format;

    #[test]
    fn formats_minor_units() {
        assert_eq!(format(1234, "usd"), "$12.34");
        assert_eq!(format(5, "USD"), "$0.05");
        assert_eq!(format(123456789, "USD"), "$1,234,567.89");
        assert_eq!(format(-50, "USD"), "−$0.50");
        assert_eq!(format(1200, "JPY"), "¥1,200");
        assert_eq!(format(1000, "KWD"), "1.000 KWD");
    }
}
