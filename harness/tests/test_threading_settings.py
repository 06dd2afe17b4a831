"""A descriptor's [threading] settings (harness/targets/README.md): read and checked, named by a campaign
(NAME, or NAME-SIZE for a sized one), their words and server arguments filled in; mistakes name file and key."""

from __future__ import annotations

import pytest
from orbench.errors import UserError
from orbench.targets.descriptor import read_descriptor, read_targets

SOCKET = ('name = "sock"\ndescription = "x"\nlanguage = "c++"\nkind = "socket"\nbuild = "cpp"\n'
          '[server]\nargv = ["x"]\n[client]\nargv = ["y"]\n[supports]\nmodes = ["twoway"]\npayload_types = ["octets"]\n')
THREADING = '''
[threading]
default = "per-connection"
[threading.per-connection]
words = "threadPerConnectionPolicy=1"
args = ["-ORBthreadPerConnectionPolicy", "1"]
[threading.pool]
sized = true
words = "maxServerThreadPoolSize={size}"
args = ["-ORBthreadPerConnectionPolicy", "0", "-ORBmaxServerThreadPoolSize", "{size}"]
'''


def descriptor(tmp_path, threading: str = THREADING):
    path = tmp_path / "sock.toml"
    path.write_text(SOCKET + threading)
    return read_descriptor(path)


def test_every_target_says_how_its_server_threads():
    for name, target in read_targets().items():
        assert target.threading and target.threading_default, f"{name}: no [threading]"
        for setting_name in target.threading_names(4):
            choice = target.threading_choice(setting_name)
            assert choice.words and "{size}" not in choice.words + " ".join(choice.args), (name, choice)


def test_a_sized_setting_is_named_with_its_size(tmp_path):
    target = descriptor(tmp_path)
    pool = target.threading_choice("pool-16")
    assert (pool.setting.name, pool.size, pool.words) == ("pool", 16, "maxServerThreadPoolSize=16")
    assert pool.args == ("-ORBthreadPerConnectionPolicy", "0", "-ORBmaxServerThreadPoolSize", "16")
    per = target.threading_choice("per-connection")
    assert per.size is None and per.args == ("-ORBthreadPerConnectionPolicy", "1")
    assert target.threading_names(4) == ("per-connection", "pool-4")
    assert target.with_server_args(pool.args).server_argv[-1] == "16"


@pytest.mark.parametrize("name", ["pool", "pool-0", "pool-x", "per-connection-4", "reactive"])
def test_a_setting_the_target_has_not_is_refused_with_its_settings(tmp_path, name):
    with pytest.raises(UserError) as exc:
        descriptor(tmp_path).threading_choice(name)
    message = str(exc.value)
    assert repr(name) in message and "per-connection, pool-SIZE" in message and "sock.toml" in message, message


@pytest.mark.parametrize("change, words", [
    (('default = "per-connection"', 'default = "pool"'), ["key threading.default", "'pool' is a sized setting"]),
    (('default = "per-connection"', 'default = "reactive"'), ["key threading.default", "not one of its settings"]),
    (('sized = true\n', ''), ["key threading.pool", "{size} in its args, but not sized = true"]),
    (('"{size}"]', '"8"]'), ["key threading.pool", "sized = true, but no {size} in its args"]),
    (('[threading.pool]', '[threading.Pool]'), ["key threading", "'Pool'"]),
    (('[threading.pool]', '[threading.pool-2x]'), ["key threading", "'pool-2x'"]),
    (('words = "threadPerConnectionPolicy=1"\n', ''), ["key threading.per-connection", "'words' is a required"]),
])
def test_threading_mistakes_name_the_file_and_the_key(tmp_path, change, words):
    with pytest.raises(UserError) as exc:
        descriptor(tmp_path, THREADING.replace(*change))
    message = str(exc.value)
    assert message.startswith(str(tmp_path / "sock.toml")) and all(w in message for w in words), message
