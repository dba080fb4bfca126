package io.nodegate.lifecycle;

import io.nodegate.cli.Nodegate;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs a nodegate command line in-process and captures exit code, stdout and stderr. */
public record CliRun(int exit, String out, String err) {
    public static CliRun of(String... args) {
        CommandLine cl = Nodegate.newCommandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new CliRun(exit, out.toString(), err.toString());
    }

    public String all() {
        return out + err;
    }
}
