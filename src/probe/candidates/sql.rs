//! Statements for a property that takes SQL. A database server's query tool refuses anything
//! but the statement it is for ("Error: Only SELECT queries are allowed", "Only CREATE TABLE
//! statements are allowed"), and its words name that statement, not a value: the smallest
//! statement of each kind named is the candidate. Only ever a statement that reads or makes a
//! new table of mcp-pin's own; a tool that changes things runs in the sandbox, on its copy.

/// Whether property `prop` (its description `desc`) takes SQL: named `query`, `sql`,
/// `statement`, or described as SQL.
pub fn takes_sql(prop: &str, desc: &str) -> bool {
    let p = prop.to_ascii_lowercase();
    ["query", "sql", "statement", "stmt"].iter().any(|w| p.contains(w)) || desc.to_ascii_lowercase().contains("sql")
}

/// The smallest statement of each kind `text` names, in a fixed order.
pub fn statements(text: &str) -> Vec<String> {
    let t = text.to_ascii_lowercase();
    let mut out = Vec::new();
    if t.contains("select") {
        out.push("SELECT 1".to_string());
    }
    if t.contains("create table") {
        out.push("CREATE TABLE IF NOT EXISTS mcp_pin_probe (id INTEGER)".to_string());
    }
    out
}

/// The statements to try in a SQL property: those `text` names, or, when it names none ("SQL
/// query to execute"), the smallest one that only reads.
pub fn candidates(text: &str) -> Vec<String> {
    let named = statements(text);
    if named.is_empty() {
        vec!["SELECT 1".to_string()]
    } else {
        named
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_property_gets_the_statement_the_words_name() {
        assert!(takes_sql("query", ""));
        assert!(takes_sql("q", "The SQL to run"));
        assert!(!takes_sql("name", "table name"));
        assert_eq!(statements("Execute a SELECT query on the SQLite database"), ["SELECT 1"]);
        assert_eq!(
            statements("Error: Only CREATE TABLE statements are allowed"),
            ["CREATE TABLE IF NOT EXISTS mcp_pin_probe (id INTEGER)"]
        );
        assert!(statements("Insert a row").is_empty());
        assert_eq!(candidates("SQL query to execute"), ["SELECT 1"]);
    }
}
