package io.nodegate.render.output;

import tools.jackson.databind.JsonNode;

/** A report with one JSON shape: -o json prints it, -o yaml prints the same tree as YAML. */
public interface TreeReport {

    JsonNode tree();
}
