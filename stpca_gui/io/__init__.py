"""Reading angle tables and writing results (Qt-free; shared by the CLI and the app)."""

from ..files.atomic import atomic_file_set, atomic_path, atomic_write_text, check_file_set
from .data_copy import DataCopy, data_copy_text, read_data_copy
from .export import (
    RESULT_FILES,
    result_file_names,
    result_tables,
    summary_dict,
    summary_text,
    write_results,
    write_score_stream,
)
from .tables import (
    AngleChunk,
    AngleTable,
    TableError,
    TableOptions,
    iter_angle_chunks,
    read_angle_table,
)

__all__ = [
    "RESULT_FILES",
    "AngleChunk",
    "AngleTable",
    "DataCopy",
    "TableError",
    "TableOptions",
    "atomic_file_set",
    "atomic_path",
    "atomic_write_text",
    "check_file_set",
    "data_copy_text",
    "iter_angle_chunks",
    "read_angle_table",
    "read_data_copy",
    "result_file_names",
    "result_tables",
    "summary_dict",
    "summary_text",
    "write_results",
    "write_score_stream",
]
