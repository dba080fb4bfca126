package io.nodegate.render.output;

/** Prometheus alert rules that can also be written as Prometheus' own rule file (`groups:`), for promtool. */
public interface RuleFileReport {

    String ruleFile();
}
