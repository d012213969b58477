"""The settings: where they live (`homes`), their validated values
(`config`), and where `init` puts them (`init_home`).
"""
