import StoreCtlCore

runStoreCtl()
