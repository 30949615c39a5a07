fn main() { println!("paydesk-cli: not yet built"); }
