"""Reading a crawl day: files → raw records → validated documents or quarantine entries."""
