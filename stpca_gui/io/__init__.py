"""Reading angle tables and writing results (Qt-free; shared by the CLI and the app)."""

from .export import atomic_write_text, result_tables, summary_dict, write_results
from .tables import AngleTable, TableError, read_angle_table

__all__ = [
    "AngleTable",
    "TableError",
    "atomic_write_text",
    "read_angle_table",
    "result_tables",
    "summary_dict",
    "write_results",
]
