"""The Ray layer of prorex: thin actors and drivers over the plain classes in ``prorex``."""
