"""Pipeline stages as Spark transforms (DataFrame → DataFrame) and their runners."""
