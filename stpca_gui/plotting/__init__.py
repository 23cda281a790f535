"""Qt-free figure builders: they draw into a given matplotlib Figure or pyvista plotter,
so the same code serves the app, figure export and the command line."""
