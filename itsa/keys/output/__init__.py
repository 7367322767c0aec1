"""Results as plain data, tables and figures: the JSON forms, detail tables and drawings."""
