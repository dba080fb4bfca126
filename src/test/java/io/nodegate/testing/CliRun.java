package io.nodegate.testing;

import io.nodegate.cli.Environment;
import io.nodegate.cli.Nodegate;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process, with the command tree `main` builds for the line, and captures its output and exit code. */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun run(String... args) {
        return run(Environment.system(), args);
    }

    /** Runs with commands built in {@code env} (a test client, a virtual clock). */
    public static CliRun run(Environment env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        // the tree main builds for this line: only the named command, so a test sees what a user's run sees
        CommandLine cl = Nodegate.newCommandLine(args, env);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Everything the command printed, for assertions that do not care which stream. */
    public String all() {
        return out + err;
    }
}
